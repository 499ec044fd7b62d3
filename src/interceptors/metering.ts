import type { Interceptor } from "@connectrpc/connect";
import { ModerationService, type ModerateRequest, type ModerateResponse } from "../../gen/moderation/v1/moderation_pb.js";
import type { Meter } from "../metering/meter.js";
import type { UsageCounts } from "../metering/usage-counts.js";
import { callerKey } from "./context-keys.js";

/**
 * Innermost in the chain: it sees only requests that auth and the rate limit let through,
 * and counts one only when Moderate answered successfully (a thrown error skips it).
 */
export function createMeteringInterceptor(deps: { meter: Meter }): Interceptor {
  return (next) => async (req) => {
    const res = await next(req);
    if (req.service.typeName !== ModerationService.typeName || req.method.name !== ModerationService.method.moderate.name) return res;
    if (req.stream || res.stream) return res;
    const caller = req.contextValues.get(callerKey);
    if (!caller) return res;
    await deps.meter.record(caller.accountId, countModerate(req.message as ModerateRequest, res.message as ModerateResponse));
    return res;
  };
}

export function countModerate(request: ModerateRequest, response: ModerateResponse): UsageCounts {
  let textItems = 0;
  let imageItems = 0;
  for (const item of request.input) {
    if (item.type === "image") imageItems++;
    else textItems++;
  }
  return {
    requests: 1,
    textItems,
    imageItems,
    deepAnalyses: request.analyzeImages ? imageItems : 0,
    flagged: response.flagged ? 1 : 0,
  };
}
