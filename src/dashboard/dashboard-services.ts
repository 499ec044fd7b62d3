import type { AccountStore } from "../accounts/account-store.js";
import { createInviteStore, type InviteStore } from "../accounts/invite-store.js";
import type { Logger } from "../base/logger.js";
import type { RateLimitConfig } from "../rate-limit/read-rate-limit-config.js";
import type { RateLimiter } from "../rate-limit/rate-limiter.js";
import type { Database } from "../storage/database.js";
import { createAuthThrottle, type AuthThrottle } from "./auth-throttle.js";
import type { AbuseLimitsConfig } from "./read-abuse-limits-config.js";
import { createLoginLimiter, type LoginLimiter } from "./login-limiter.js";
import { createPasswordHasher, type PasswordHasher } from "./password.js";
import { createSessionStore, type SessionStore } from "./session-store.js";

export interface DashboardServices {
  sessions: SessionStore;
  loginLimiter: LoginLimiter;
  invites: InviteStore;
  /** Per-IP and per-account log-in and sign-up limits, in the rate limiter's store. */
  throttle: AuthThrottle;
  /** scrypt under a per-process concurrency cap. */
  passwords: PasswordHasher;
}

/**
 * Built once per process; sessions and per-(email, IP) log-in failures live in SQL, the other
 * log-in and sign-up counts in the rate limiter's store: both shared by every replica.
 */
export function createDashboardServices(deps: {
  db: Database;
  accounts: AccountStore;
  clock: () => number;
  /** The settings it reads (the whole Config fits). */
  config: { abuseLimits: AbuseLimitsConfig; rateLimit: Pick<RateLimitConfig, "failureMode"> };
  rateLimiter: RateLimiter;
  log?: Logger;
}): DashboardServices {
  const limits = deps.config.abuseLimits;
  return {
    throttle: createAuthThrottle({
      store: deps.rateLimiter,
      limits,
      failureMode: deps.config.rateLimit.failureMode,
      ...(deps.log ? { log: deps.log } : {}),
    }),
    passwords: createPasswordHasher({ concurrency: limits.passwordHashConcurrency, maxQueue: limits.passwordHashQueue }),
    sessions: createSessionStore(deps.db, deps.clock),
    loginLimiter: createLoginLimiter({ db: deps.db, clock: deps.clock }),
    invites: createInviteStore(deps.db, deps.clock),
  };
}
