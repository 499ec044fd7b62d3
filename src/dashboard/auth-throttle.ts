import { createHash } from "node:crypto";
import type { Logger } from "../base/logger.js";
import type { RateLimitFailureMode } from "../rate-limit/read-rate-limit-config.js";
import { RateLimiterUnavailableError, type RateLimitDecision, type RateLimiter } from "../rate-limit/rate-limiter.js";
import type { AbuseLimitsConfig } from "./read-abuse-limits-config.js";

const LOGIN_WINDOW_MS = 15 * 60_000;
const SIGNUP_WINDOW_MS = 60 * 60_000;
/** Back-off once an account is past its failure budget: 1 s, doubling per further failure, up to this. */
const MAX_ACCOUNT_BACKOFF_MS = 60_000;
/** Failures are always recorded: the limit only bounds what one key can store. */
const RECORD_LIMIT = 100_000;

/** Why a log-in or sign-up is refused before any password work: the page says `message`. */
export interface Refusal {
  status: 429 | 503;
  /** Its X-Error-Code (request logs and metrics count refusals by it). */
  code: "rate_limit_exceeded" | "rate_limiter_unavailable" | "service_unavailable";
  retryAfterMs: number;
  message: string;
}

/**
 * The log-in and sign-up limits that need a count shared by every replica: kept in the rate
 * limiter's store (Redis when configured, memory otherwise) under keys of their own. Emails and
 * addresses are stored only as hashes. The strict per-(email, IP) lock is the SQL LoginLimiter.
 *
 * - per client IP: log-in attempts (counted before the password is checked, so a burst cannot slip
 *   past), and sign-ups;
 * - per account: failures from any IP; past the budget the account answers at most one attempt per
 *   back-off interval, never a full lock, so an attacker can slow a victim's log-in but not stop it.
 *   Failures are attempts less those that did not fail (a success, or a refusal before the
 *   password was checked: attemptDidNotFail), and an attempt counts when it starts: counted once
 *   its password had been checked, a burst from many addresses all found the account under budget.
 */
export function createAuthThrottle(deps: { store: RateLimiter; limits: AbuseLimitsConfig; failureMode: RateLimitFailureMode; log?: Logger }) {
  const { store, limits } = deps;
  const hash = (kind: string, value: string) => `dashboard:${kind}:${createHash("sha256").update(value).digest("base64url").slice(0, 32)}`;
  // One spelling per account, given by the caller (auth-routes.ts) and taken as given.
  const accountKey = (account: string) => hash("login-failures", account);
  const notFailedKey = (account: string) => `${accountKey(account)}:not-failed`;
  const counted = { windowMs: LOGIN_WINDOW_MS };
  const countNotFailed = (account: string) => store.consume(notFailedKey(account), RECORD_LIMIT, counted);

  /** Runs the store calls; a store that cannot answer refuses (closed) or lets through (open). */
  async function guarded(check: () => Promise<Refusal | undefined>): Promise<Refusal | undefined> {
    try {
      return await check();
    } catch (error) {
      if (!(error instanceof RateLimiterUnavailableError)) throw error;
      deps.log?.warn({ err: error, failureMode: deps.failureMode }, "dashboard limits: store unavailable");
      if (deps.failureMode === "open") return undefined;
      return { status: 503, code: "rate_limiter_unavailable", retryAfterMs: error.retryAfterMs, message: "Log-in and sign-up are briefly unavailable. Try again in a moment." };
    }
  }

  const tooMany = (decision: RateLimitDecision, message: (wait: string) => string): Refusal => ({
    status: 429,
    code: "rate_limit_exceeded",
    retryAfterMs: Math.max(1000, decision.resetMs),
    message: message(describeWait(decision.resetMs)),
  });

  return {
    /**
     * Counts this attempt against the IP and, as a failure until attemptDidNotFail says otherwise,
     * against the account, and applies the account's back-off. Attempts still in flight count as
     * failures: a burst cannot slip under the budget.
     */
    beforeLogin(email: string, ip: string): Promise<Refusal | undefined> {
      return guarded(async () => {
        const perIp = await store.consume(hash("login-ip", ip), limits.loginAttemptsPerIp, counted);
        if (!perIp.allowed) return tooMany(perIp, (wait) => `Too many log-in attempts from your network. Try again in ${wait}.`);
        const attempts = await store.consume(accountKey(email), RECORD_LIMIT, counted);
        const notFailed = await store.consume(notFailedKey(email), RECORD_LIMIT, { ...counted, dryRun: true });
        // Failures before this attempt: the account's other attempts less those that did not fail.
        const failures = RECORD_LIMIT - attempts.remaining - 1 - (RECORD_LIMIT - notFailed.remaining);
        const over = failures - limits.loginFailuresPerAccount;
        if (over < 0) return undefined;
        const backoffMs = Math.min(MAX_ACCOUNT_BACKOFF_MS, 1000 * 2 ** Math.min(over, 16));
        const slot = await store.consume(`${accountKey(email)}:slot`, 1, { windowMs: backoffMs });
        if (slot.allowed) return undefined;
        // Refused before its password was checked: no failure, so the back-off does not grow with refusals.
        await countNotFailed(email);
        return tooMany(slot, (wait) => `This account has had many failed log-ins. Try again in ${wait}.`);
      });
    },
    /** An attempt beforeLogin let through did not fail: it succeeded, or was refused before its password was checked. */
    async attemptDidNotFail(email: string): Promise<void> {
      await guarded(async () => {
        await countNotFailed(email);
        return undefined;
      });
    },
    /** Counts this sign-up against the IP. */
    beforeSignup(ip: string): Promise<Refusal | undefined> {
      return guarded(async () => {
        const perIp = await store.consume(hash("signup-ip", ip), limits.signupsPerIp, { windowMs: SIGNUP_WINDOW_MS });
        return perIp.allowed ? undefined : tooMany(perIp, (wait) => `Too many sign-ups from your network. Try again in ${wait}.`);
      });
    },
  };
}

export type AuthThrottle = ReturnType<typeof createAuthThrottle>;

/** "1 second", "45 seconds", "15 minutes": a wait in words, singular where it is one ("1 seconds" was shown). */
export function describeWait(ms: number): string {
  const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (ms <= 60_000) return count(Math.max(1, Math.ceil(ms / 1000)), "second");
  return count(Math.ceil(ms / 60_000), "minute");
}
