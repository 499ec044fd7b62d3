import { moderateRequestFromJson } from "../moderation/json-request.js";

// The checks of a parsed body live in moderation/json-request.ts, where Connect's JSON refusals
// reuse them (rpc/decode-check.ts); re-exported for the route. The route parses a body with
// ctx.readJsonBody (moderation/json-body-value.ts parseJsonBody, in a compute worker when the body
// is large) and then these checks: json-route.ts parseRequestBody.
export { moderateRequestFromJson };
