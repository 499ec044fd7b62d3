import type { RateLimitDecision } from "./rate-limiter.js";

/** Policy name in the IETF RateLimit-Policy / RateLimit fields; one policy: the plan's per-minute quota. */
const RATE_LIMIT_POLICY_NAME = "per-minute";

/**
 * The headers (and gRPC metadata) for a decision: the de-facto X-RateLimit-* trio, the IETF draft
 * (draft-ietf-httpapi-ratelimit-headers) structured fields, and Retry-After when denied.
 * Times are whole seconds rounded up, so a client that waits that long is never early.
 */
export function formatRateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const resetSeconds = Math.ceil(decision.resetMs / 1000);
  const policy = policyValues(decision.limit, decision.windowMs);
  const headers: Record<string, string> = {
    "X-RateLimit-Limit": policy.limit,
    "RateLimit-Policy": policy.policy,
    "X-RateLimit-Remaining": String(decision.remaining),
    "X-RateLimit-Reset": String(resetSeconds),
    RateLimit: `"${RATE_LIMIT_POLICY_NAME}";r=${decision.remaining};t=${resetSeconds}`,
  };
  if (!decision.allowed) headers["Retry-After"] = String(Math.max(1, resetSeconds));
  return headers;
}

/** What is known without asking the store: used when the store is unavailable. */
export function formatPolicyHeaders(limit: number, windowMs: number): Record<string, string> {
  const policy = policyValues(limit, windowMs);
  return { "X-RateLimit-Limit": policy.limit, "RateLimit-Policy": policy.policy };
}

// A plan's policy strings never change, and every request sends them: format them once. Keyed by
// the numbers themselves (window, then limit), not by a string built from them on every request.
const policyCache = new Map<number, Map<number, { limit: string; policy: string }>>();
let cachedPolicies = 0;

function policyValues(limit: number, windowMs: number): { limit: string; policy: string } {
  let byLimit = policyCache.get(windowMs);
  let values = byLimit?.get(limit);
  if (!values) {
    values = { limit: String(limit), policy: `"${RATE_LIMIT_POLICY_NAME}";q=${limit};w=${Math.ceil(windowMs / 1000)}` };
    // Enterprise limits are custom numbers: bound the cache all the same.
    if (cachedPolicies >= 1000) {
      policyCache.clear();
      cachedPolicies = 0;
      byLimit = undefined;
    }
    if (!byLimit) policyCache.set(windowMs, (byLimit = new Map()));
    byLimit.set(limit, values);
    cachedPolicies++;
  }
  return values;
}
