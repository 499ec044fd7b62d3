import type { Interceptor } from "@connectrpc/connect";
import { ModerationService, type ModerateRequest, type ModerateResponse } from "../../gen/moderation/v1/moderation_pb.js";
import { PolicyService, type TestPolicyRequest, type TestPolicyResponse } from "../../gen/moderation/v1/policy_pb.js";
import type { Meter } from "../metering/meter.js";
import { countModerate, type CountedRequest } from "../metering/count-moderate.js";
import { callerKey } from "./context-keys.js";
import { commitAnswer, deadlineExceeded, deadlinePassed } from "./deadline.js";

/**
 * Innermost in the chain: it sees only requests that auth and the rate limit let through,
 * and counts one only when Moderate or PolicyService.TestPolicy answered successfully (a thrown
 * error skips it). TestPolicy scores its items with the full model, as Moderate does: it was
 * moderation no usage figure showed.
 */
export function createMeteringInterceptor(deps: { meter: Meter }): Interceptor {
  return (next) => async (req) => {
    const res = await next(req);
    if (req.stream || res.stream) return res;
    // The call's signal aborted while it ran: its deadline passed (the caller was answered
    // deadline_exceeded, not this answer) or the caller left. Not answered, so not counted.
    if (req.signal.aborted) return res;
    // Finished past the deadline on a busy event loop, before Connect's timer could fire: refused
    // here, where billing is decided, so an answer is never both refused and counted.
    if (deadlinePassed(req)) throw deadlineExceeded();
    const counted = countedExchange(req.service.typeName, req.method.name, req.message, res.message);
    if (!counted) return res;
    const caller = req.contextValues.get(callerKey);
    if (!caller) return res;
    // Counted from here on, so delivered: a deadline passing while the journal syncs no longer refuses it.
    commitAnswer(req);
    await deps.meter.record(caller.accountId, countModerate(counted.request, counted.response));
    return res;
  };
}

/** The moderation a metered method did, or undefined for a method that is not metered. */
function countedExchange(service: string, method: string, request: unknown, response: unknown): { request: CountedRequest; response: ModerateResponse } | undefined {
  if (service === ModerationService.typeName && method === ModerationService.method.moderate.name) {
    return { request: request as ModerateRequest, response: response as ModerateResponse };
  }
  if (service === PolicyService.typeName && method === PolicyService.method.testPolicy.name) {
    const answer = (response as TestPolicyResponse).answer;
    // Text items only (TestPolicy refuses others); counted as Moderate would count them.
    if (answer) return { request: request as TestPolicyRequest, response: answer };
  }
  return undefined;
}
