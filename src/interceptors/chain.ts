import type { Interceptor } from "@connectrpc/connect";
import type { AppContext } from "../app/app-context.js";
import { createAuthInterceptor } from "./auth.js";
import { createErrorMappingInterceptor } from "./error-mapping.js";
import { createSigningInterceptor } from "./signing.js";
import { createRateLimitInterceptor } from "./rate-limit.js";
import { createMeteringInterceptor } from "./metering.js";

/**
 * The one interceptor chain every protocol runs, the JSON route included. First is
 * outermost. The order is deliberate:
 *   1. signing       — outermost, so every answer is signed, errors included;
 *   2. error mapping — turns anything thrown inside into a ConnectError with a stable code;
 *   3. auth          — resolves X-API-Key to an account;
 *   4. rate limit    — per account, so it needs auth's answer;
 *   5. metering      — counts only requests that were let through.
 * None changes an answer message in place: the JSON route and the signing interceptor may use
 * a signature a compute worker made ahead for that very message (src/signing/signed-ahead.ts).
 */
export function createInterceptorChain(ctx: AppContext): Interceptor[] {
  return [
    createSigningInterceptor({ keys: ctx.signingKeys, now: ctx.clock }),
    createErrorMappingInterceptor(ctx.log),
    createAuthInterceptor({ accounts: ctx.accounts, onKeyUsed: ctx.keyUsage.record }),
    createRateLimitInterceptor({ limiter: ctx.rateLimiter, failureMode: ctx.config.rateLimit.failureMode, log: ctx.log }),
    createMeteringInterceptor({ meter: ctx.meter }),
  ];
}
