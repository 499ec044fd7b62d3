import { ConnectError, type Interceptor } from "@connectrpc/connect";
import type { Logger } from "../base/logger.js";
import { ApiError, toApiError } from "../errors/api-error.js";
import { formatPolicyHeaders, formatRateLimitHeaders } from "../rate-limit/rate-limit-headers.js";
import type { RateLimitFailureMode } from "../rate-limit/read-rate-limit-config.js";
import { decideRateLimit, rateLimitExceeded } from "../rate-limit/decide-rate-limit.js";
import { RATE_LIMIT_WINDOW_MS, type RateLimiter } from "../rate-limit/rate-limiter.js";
import { callerKey } from "./context-keys.js";
import { decidedAhead } from "./rate-limit-ahead.js";

interface RateLimitInterceptorDeps {
  limiter: RateLimiter;
  failureMode: RateLimitFailureMode;
  log?: Logger;
  /** A call let through uncounted: the store was down and the failure mode is open. */
  onUncounted?: () => void;
}

/**
 * Charges each authenticated call to its account (every key of an account shares one budget) on
 * every protocol, since they all run this chain. The limit comes from the caller that auth just
 * re-read from the store, so a plan change applies on the next request. Public calls pass untouched.
 */
export function createRateLimitInterceptor(deps: RateLimitInterceptorDeps): Interceptor {
  return (next) => async (req) => {
    const caller = req.contextValues.get(callerKey);
    if (!caller) return next(req);
    const limit = caller.requestsPerMinute;
    if (!(limit >= 1)) {
      // Only reachable with a hand-edited account: enterprise without a custom limit.
      throw new ApiError("rate_limit_exceeded", "This account has no request quota. Its plan's limit must be set.", {
        headers: formatPolicyHeaders(0, RATE_LIMIT_WINDOW_MS),
      });
    }

    // Taken by the transport before it parsed the body (rate-limit-ahead.ts): applied, not taken twice.
    const ahead = decidedAhead(req.contextValues, caller.accountId);
    if (ahead && "failure" in ahead) throw ahead.failure;
    const decision = ahead
      ? ahead.decision
      : deps.limiter.consumeNow ? deps.limiter.consumeNow(caller.accountId, limit) : await decideRateLimit(deps, caller.accountId, limit);
    if (!decision) deps.onUncounted?.();
    const headers = decision ? formatRateLimitHeaders(decision) : formatPolicyHeaders(limit, RATE_LIMIT_WINDOW_MS);
    if (decision && !decision.allowed) throw rateLimitExceeded(limit, decision);
    try {
      const res = await next(req);
      // for-in, not Object.entries: no array per header on every answer.
      for (const name in headers) res.header.set(name, headers[name]!);
      return res;
    } catch (error) {
      throw withHeaders(error, headers);
    }
  };
}

/** A call that was let through keeps its rate limit headers even when the handler fails. */
function withHeaders(error: unknown, headers: Record<string, string>): unknown {
  if (error instanceof ConnectError) {
    for (const [name, value] of Object.entries(headers)) {
      if (!error.metadata.has(name)) error.metadata.set(name, value);
    }
    return error;
  }
  const apiError = toApiError(error);
  for (const [name, value] of Object.entries(headers)) apiError.headers[name] ??= value;
  return apiError;
}
