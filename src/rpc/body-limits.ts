import type { DescMethod } from "@bufbuild/protobuf";
import { AccountService } from "../../gen/moderation/v1/account_pb.js";
import { PolicyService } from "../../gen/moderation/v1/policy_pb.js";
import { MAX_JSON_VALUES } from "../base/json-outline.js";
import { MAX_REQUEST_BYTES } from "../base/limits.js";
import { POLICY_LIMITS } from "../policies/policy.js";
import type { BodyLimit } from "./guard-request-body.js";

/**
 * Moderate: ten items, each an image of MAX_IMAGE_BYTES as base64 (src/base/limits.ts); as
 * Connect JSON, at most as many values as the JSON routes read.
 */
const MODERATE_LIMIT: BodyLimit = { bytes: MAX_REQUEST_BYTES, why: ", more than ten maximal items need", values: MAX_JSON_VALUES };

/**
 * PolicyService: the largest policy and ten texts (TestPolicy takes text only), even as Connect
 * JSON from an encoder that escapes every character (Python's default): 11,000 terms of 100
 * astral code points at 12 bytes each (two \uXXXX escapes) are about 13.6 MB, ten texts of 10,000
 * 1.2 MB. Without its own limit a policy call could send the 70 MB that ten images need, and it
 * was decoded before the term count refused it (36 MB: 1.6 s of CPU). test/rpc/body-limits.test.ts
 * builds the largest request and holds it under this.
 */
export const POLICY_REQUEST_BYTES = 16 * 1024 * 1024;
/**
 * JSON values of the largest policy request: a block-list term is an element and its two members,
 * an allow-list term one element; MAX_JSON_VALUES more for the thresholds, the categories turned
 * off and ten texts. test/rpc/body-limits.test.ts counts the largest request under it.
 */
export const POLICY_JSON_VALUES = 3 * POLICY_LIMITS.blockListTerms + POLICY_LIMITS.allowListTerms + MAX_JSON_VALUES;
const POLICY_LIMIT: BodyLimit = { bytes: POLICY_REQUEST_BYTES, why: ", more than the largest policy and ten texts need", values: POLICY_JSON_VALUES };

/** AccountService: a key id and a date range. */
const ACCOUNT_LIMIT: BodyLimit = { bytes: 64 * 1024, why: "", values: MAX_JSON_VALUES };

/** The body limit of an RPC that needs an API key (the public ones get the guard's PUBLIC_BODY_LIMIT). */
export function bodyLimitOf(method: DescMethod): BodyLimit {
  if (method.parent === PolicyService) return POLICY_LIMIT;
  if (method.parent === AccountService) return ACCOUNT_LIMIT;
  return MODERATE_LIMIT;
}
