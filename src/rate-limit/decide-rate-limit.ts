import type { Logger } from "../base/logger.js";
import { ApiError } from "../errors/api-error.js";
import { formatPolicyHeaders, formatRateLimitHeaders } from "./rate-limit-headers.js";
import type { RateLimitFailureMode } from "./read-rate-limit-config.js";
import { RATE_LIMIT_WINDOW_MS, RateLimiterUnavailableError, type RateLimitDecision, type RateLimiter } from "./rate-limiter.js";

/**
 * One call charged to `key`'s budget: the decision, or undefined when the store is down and the
 * failure mode lets the call through; rate_limiter_unavailable when it is down and the mode is
 * closed. For the interceptor chain (src/interceptors/rate-limit.ts) and the dashboard's
 * "Try draft", which moderates like an API call.
 */
export async function decideRateLimit(
  deps: { limiter: RateLimiter; failureMode: RateLimitFailureMode; log?: Logger | undefined },
  key: string,
  limit: number,
): Promise<RateLimitDecision | undefined> {
  const started = performance.now();
  try {
    const decision = await deps.limiter.consume(key, limit);
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

/**
 * The refusal of a call the budget did not allow (`decision.allowed` false), with the decision's
 * headers (Retry-After among them). The API's chain and the dashboard say it in the same words.
 */
export function rateLimitExceeded(limit: number, decision: RateLimitDecision): ApiError {
  const headers = formatRateLimitHeaders(decision);
  return new ApiError(
    "rate_limit_exceeded",
    // No ":" or ",": some gRPC clients leave them percent-encoded in grpc-message.
    `Rate limit exceeded. This account's plan allows ${limit} requests per minute. Retry in ${headers["Retry-After"]} s.`,
    { headers },
  );
}
