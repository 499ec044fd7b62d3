import type { ModerateRequest } from "../../gen/moderation/v1/moderation_pb.js";
import { parseJsonBody } from "../moderation/json-body-value.js";
import { moderateRequestFromJson } from "../moderation/json-request.js";

// The checks of a parsed body live in moderation/json-request.ts, where Connect's JSON refusals
// reuse them (rpc/decode-check.ts); re-exported for the route.
export { moderateRequestFromJson };

/**
 * Turns the spec's JSON body into a ModerateRequest, checking JSON types strictly (parseJsonBody,
 * then moderateRequestFromJson).
 */
export function parseModerateJson(bytes: Uint8Array): ModerateRequest {
  return moderateRequestFromJson(parseJsonBody(bytes));
}
