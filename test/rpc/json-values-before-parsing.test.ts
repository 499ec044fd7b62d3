import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { UpdatePolicyRequestSchema } from "../../gen/moderation/v1/policy_pb.js";
import { POLICY_LIMITS } from "../../src/policies/policy.js";
import { MAX_JSON_VALUES } from "../../src/base/json-outline.js";
import { POLICY_JSON_VALUES } from "../../src/rpc/body-limits.js";
import { GRPC } from "../api/error-expectations.js";
import { postRefused, RAW_PROTOCOLS } from "../support/raw-moderate.js";
import { useServerWithKey } from "../support/test-server.js";

/**
 * A Connect JSON body is refused by its count of object members and array elements, read without
 * parsing it (json-outline.ts), as the JSON routes refuse theirs: Connect parses the whole text
 * before it meets the first key its schema lacks, so a Moderate body of millions of unknown keys
 * held the event loop for seconds for each call of a keyed caller.
 */

const file = useServerWithKey();
const connectJson = RAW_PROTOCOLS.find((p) => p.json)!;
const tooMany = (bound: number) => `The request body holds more than ${bound} JSON values (object members and array elements), far more than any request needs.`;

/** One text item holding `count` keys ModerateRequest's InputItem does not have. */
const unknownKeys = (count: number): Uint8Array => {
  const keys = Array.from({ length: count }, (_, i) => `"k${i}":1`).join(",");
  return new TextEncoder().encode(`{"input":[{"type":"text","text":"hi",${keys}}]}`);
};

describe("Connect JSON values counted before parsing", () => {
  it("refuses a Moderate body of 200,000 unknown keys, in the JSON routes' words", async () => {
    const refusal = await postRefused(connectJson, file.server, unknownKeys(200_000), { "x-api-key": file.key });
    expect(refusal).toMatchObject({ code: GRPC.INVALID_ARGUMENT, errorCode: "invalid_request", message: tooMany(MAX_JSON_VALUES) });
  });

  it("still reads a body under the bound (Moderate ignores keys it does not have)", async () => {
    const response = await fetch(`${file.server.httpUrl}/moderation.v1.ModerationService/Moderate`, {
      method: "POST", headers: { "content-type": "application/json", "x-api-key": file.key }, body: new TextDecoder().decode(unknownKeys(100)),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ results: [{}] });
  });

  it("bounds the policy and account methods by what their largest request holds", async () => {
    const values = (n: number) => new TextEncoder().encode(`{"keyId":"","x":[${Array(n).fill(1).join(",")}]}`);
    const usage = await postRefused(connectJson, file.server, values(MAX_JSON_VALUES + 10), { "x-api-key": file.key }, "/moderation.v1.AccountService/GetUsage");
    expect(usage).toMatchObject({ errorCode: "invalid_request", message: tooMany(MAX_JSON_VALUES) });
    const policy = await postRefused(connectJson, file.server, values(POLICY_JSON_VALUES + 10), { "x-api-key": file.key }, "/moderation.v1.PolicyService/GetPolicy");
    expect(policy).toMatchObject({ errorCode: "invalid_request", message: tooMany(POLICY_JSON_VALUES) });
  });
});

// Found by an audit: protobuf had no such bound, so fromBinary built every element of a list
// (eight million empty block-list terms held the event loop 36 s, 2.2 GB) before the policy's
// own count refused it.
describe("protobuf list elements and map entries counted before decoding", () => {
  const binary = RAW_PROTOCOLS.filter((p) => !p.json);
  const tooManyElements = (bound: number) => `The request message holds more than ${bound} list elements and map entries, far more than any request needs.`;
  const update = (rules: Record<string, unknown>) => toBinary(UpdatePolicyRequestSchema, create(UpdatePolicyRequestSchema, { rules }));

  it.each(binary)("refuses a policy of too many block-list terms or thresholds over $name, and reads the largest valid one", async (protocol) => {
    const path = "/moderation.v1.PolicyService/UpdatePolicy";
    const terms = update({ blockList: Array.from({ length: POLICY_JSON_VALUES + 1 }, () => ({})) });
    expect(await postRefused(protocol, file.server, terms, { "x-api-key": file.key }, path)).toMatchObject({ errorCode: "invalid_request", message: tooManyElements(POLICY_JSON_VALUES) });
    const thresholds = update({ thresholds: Object.fromEntries(Array.from({ length: POLICY_JSON_VALUES + 1 }, (_, i) => [`k${i}`, 0.5])) });
    expect(await postRefused(protocol, file.server, thresholds, { "x-api-key": file.key }, path)).toMatchObject({ errorCode: "invalid_request", message: tooManyElements(POLICY_JSON_VALUES) });
    // Under the bound the policy's own refusal answers: the list is read.
    const longest = update({ blockList: Array.from({ length: POLICY_LIMITS.blockListTerms + 1 }, (_, i) => ({ term: `t${i}` })), allowList: Array.from({ length: POLICY_LIMITS.allowListTerms }, (_, i) => `a${i}`) });
    expect(await postRefused(protocol, file.server, longest, { "x-api-key": file.key }, path)).toMatchObject({ errorCode: "policy_list_too_large" });
  });
});
