import type { Interceptor } from "@connectrpc/connect";
import type { AppContext } from "../app/app-context.js";
import { createAuthInterceptor } from "./auth.js";
import { createDeadlineInterceptor } from "./deadline.js";
import { createDecodedRequestInterceptor } from "./decoded-request.js";
import { createErrorMappingInterceptor } from "./error-mapping.js";
import { createSigningInterceptor } from "./signing.js";
import { createRateLimitInterceptor } from "./rate-limit.js";
import { createMeteringInterceptor } from "./metering.js";
import { createDeferredBodyRefusalInterceptor } from "./deferred-body-refusal.js";
import type { RateLimitAheadDeps } from "./rate-limit-ahead.js";

/**
 * The one interceptor chain every protocol runs, the JSON route included. First is
 * outermost. The order is deliberate:
 *   0. decoded request — the RPC message the body guard decoded after checking the key
 *                        (src/rpc/guard-request-body.ts), so that signing sees it;
 *   1. signing       — so every answer is signed, errors included;
 *   2. error mapping — turns anything thrown inside into a ConnectError with a stable code;
 *   3. deadline      — answers deadline_exceeded when the caller's grpc-timeout / connect-timeout-ms passes;
 *   4. auth          — resolves X-API-Key to an account;
 *   5. rate limit    — per account, so it needs auth's answer;
 *   6. metering      — counts only requests that were let through;
 *   7. deferred body refusal — a problem the body guard found without decoding (too many items),
 *                        raised after the rate limit, as the handler's own check would be.
 * None changes an answer message in place: the JSON route and the signing interceptor may use
 * a signature a compute worker made ahead for that very message (src/signing/signed-ahead.ts).
 */
export function createInterceptorChain(ctx: AppContext): Interceptor[] {
  return [
    createDecodedRequestInterceptor(),
    createSigningInterceptor({ keys: ctx.signingKeys, now: ctx.clock }),
    createErrorMappingInterceptor(ctx.log),
    createDeadlineInterceptor(),
    createAuthInterceptor({ accounts: ctx.accounts, onKeyUsed: ctx.keyUsage.record }),
    createRateLimitInterceptor({ ...rateLimitDepsOf(ctx), onUncounted: ctx.metrics.rateLimitUncounted }),
    createMeteringInterceptor({ meter: ctx.meter }),
    createDeferredBodyRefusalInterceptor(),
  ];
}

/** The limiter and its settings, for the interceptor and for the transports that ask it ahead (rate-limit-ahead.ts). */
export function rateLimitDepsOf(ctx: AppContext): RateLimitAheadDeps {
  return { limiter: ctx.rateLimiter, failureMode: ctx.config.rateLimit.failureMode, log: ctx.log };
}
