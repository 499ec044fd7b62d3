import { createContextKey, type ContextValues } from "@connectrpc/connect";
import type { Logger } from "../base/logger.js";
import type { RateLimitFailureMode } from "../rate-limit/read-rate-limit-config.js";
import { decideRateLimit } from "../rate-limit/decide-rate-limit.js";
import { RateLimiterUnavailableError, type RateLimitDecision, type RateLimiter } from "../rate-limit/rate-limiter.js";
import { liveCallerOf } from "./auth.js";

/**
 * A call's rate limit decision, taken by its transport before the body was parsed: the rate limit
 * interceptor applies it instead of asking the limiter again. `decision` is undefined when the
 * limiter was down and the failure mode open (the call goes on uncounted).
 */
export type DecidedAhead = { accountId: string; decision: RateLimitDecision | undefined } | { accountId: string; failure: unknown };

const decidedAheadKey = createContextKey<DecidedAhead | undefined>(undefined, { description: "rate limit decided before the body was parsed" });

/** The decision taken ahead for this account's call, if one was. */
export function decidedAhead(values: ContextValues, accountId: string): DecidedAhead | undefined {
  const ahead = values.get(decidedAheadKey);
  return ahead?.accountId === accountId ? ahead : undefined;
}

export interface RateLimitAheadDeps {
  limiter: RateLimiter;
  failureMode: RateLimitFailureMode;
  log?: Logger;
}

/** A boolean at once when the limiter answers without I/O (in memory): no promise turn per request. */
type Answer = boolean | Promise<boolean>;

/**
 * The rate limit, asked by a transport once it holds a live key's body (the key looked up by
 * createApiKeyCheck) and before it parses or decodes it, so that an account over its limit costs
 * no parsing (a rate-limited key's 60 MB JSON body kept the event loop 1.8 s before its 429). What
 * is charged does not change: docs/rate-limits.md.
 */
export function createRateLimitAhead(deps: RateLimitAheadDeps): {
  /**
   * The JSON routes: charges the call now, as the interceptor would have (every call of a live key
   * that reaches the chain is charged, a bad body's included), and keeps the decision for it.
   * False when the call is refused (over the limit, or the limiter down in closed mode): its body
   * need not be parsed, the chain answers the refusal.
   */
  charge(values: ContextValues): Answer;
  /**
   * The RPC routes: whether the account is already over its limit, asked without charging (a dry
   * run). The body guard refuses to decode a body that does not decode without charging, and a
   * refusal there must stay uncharged, so the call is charged by the interceptor as before. A
   * refusal found here is kept for the interceptor, which answers it without asking again: a
   * denied check records nothing, so the dry run's denial is the one the check would give.
   */
  isOverLimit(values: ContextValues): Answer;
} {
  return {
    charge(values) {
      const caller = liveCallerOf(values);
      if (!caller || !(caller.requestsPerMinute >= 1)) return true;
      const { accountId, requestsPerMinute: limit } = caller;
      if (deps.limiter.consumeNow) {
        const decision = deps.limiter.consumeNow(accountId, limit);
        values.set(decidedAheadKey, { accountId, decision });
        return decision.allowed;
      }
      return decideRateLimit(deps, accountId, limit).then(
        (decision) => {
          values.set(decidedAheadKey, { accountId, decision });
          return decision === undefined || decision.allowed;
        },
        (failure: unknown) => {
          values.set(decidedAheadKey, { accountId, failure });
          return false;
        },
      );
    },
    isOverLimit(values) {
      const caller = liveCallerOf(values);
      if (!caller || !(caller.requestsPerMinute >= 1)) return false;
      const { accountId, requestsPerMinute: limit } = caller;
      const keepDenial = (decision: RateLimitDecision) => {
        if (!decision.allowed) values.set(decidedAheadKey, { accountId, decision });
        return !decision.allowed;
      };
      if (deps.limiter.consumeNow) return keepDenial(deps.limiter.consumeNow(accountId, limit, { dryRun: true }));
      // A limiter that cannot answer: the body is decoded as before, and the interceptor asks again.
      return deps.limiter.consume(accountId, limit, { dryRun: true }).then(keepDenial, (error: unknown) => {
        if (error instanceof RateLimiterUnavailableError) return false;
        throw error;
      });
    },
  };
}
