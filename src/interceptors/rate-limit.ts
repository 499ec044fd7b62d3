import { ConnectError, type Interceptor } from "@connectrpc/connect";
import type { Logger } from "../base/logger.js";
import { ApiError, toApiError } from "../errors/api-error.js";
import { formatPolicyHeaders, formatRateLimitHeaders } from "../rate-limit/rate-limit-headers.js";
import type { RateLimitFailureMode } from "../rate-limit/read-rate-limit-config.js";
import { RATE_LIMIT_WINDOW_MS, RateLimiterUnavailableError, type RateLimitDecision, type RateLimiter } from "../rate-limit/rate-limiter.js";
import { callerKey } from "./context-keys.js";

interface RateLimitInterceptorDeps {
  limiter: RateLimiter;
  failureMode: RateLimitFailureMode;
  log?: Logger;
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

    const decision = deps.limiter.consumeNow ? deps.limiter.consumeNow(caller.accountId, limit) : await decide(deps, caller.accountId, limit);
    const headers = decision ? formatRateLimitHeaders(decision) : formatPolicyHeaders(limit, RATE_LIMIT_WINDOW_MS);
    if (decision && !decision.allowed) {
      const retryAfter = headers["Retry-After"];
      throw new ApiError(
        "rate_limit_exceeded",
        // No ":" or ",": some gRPC clients leave them percent-encoded in grpc-message.
        `Rate limit exceeded. This account's plan allows ${limit} requests per minute. Retry in ${retryAfter} s.`,
        { headers },
      );
    }
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

/** The decision, or undefined when the store is down and the failure mode lets the call through. */
async function decide(deps: RateLimitInterceptorDeps, accountId: string, limit: number): Promise<RateLimitDecision | undefined> {
  const started = performance.now();
  try {
    const decision = await deps.limiter.consume(accountId, limit);
    // Read by bench/rate-limit-replicas.ts to report the limiter's added latency.
    deps.log?.debug({ rateLimitMs: performance.now() - started, allowed: decision.allowed }, "rate limit decision");
    return decision;
  } catch (error) {
    if (!(error instanceof RateLimiterUnavailableError)) throw error;
    deps.log?.debug({ err: error, failureMode: deps.failureMode }, "rate limiter unavailable");
    if (deps.failureMode === "open") return undefined;
    throw new ApiError("rate_limiter_unavailable", "The rate limiter is temporarily unavailable and the request was not processed. Retry shortly.", {
      cause: error,
      headers: { ...formatPolicyHeaders(limit, RATE_LIMIT_WINDOW_MS), "Retry-After": String(Math.ceil(error.retryAfterMs / 1000)) },
    });
  }
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
