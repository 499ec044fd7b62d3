import { createHash } from "node:crypto";
import type { Database } from "../storage/database.js";
import { toNumber } from "../storage/database.js";

/**
 * Failed log-ins per (email, client IP): after `maxFailures` within `windowMs` of the first, the
 * pair is refused until that window ends; a successful log-in clears it. Counted in SQL (the
 * login_failures table), so every replica on the same database and every restart share one
 * count: an attacker gets `maxFailures` guesses per window, not per process. Only a hash of the
 * pair is stored. An attempt is counted as a failure when it is claimed, before its password is
 * checked (about 100 ms of scrypt): counted afterwards, 28 guesses sent at once all found the
 * count at 0 and all ran.
 */
export function createLoginLimiter(options: { db: Database; clock: () => number; maxFailures?: number; windowMs?: number }) {
  const { db, clock } = options;
  const maxFailures = options.maxFailures ?? 5;
  const windowMs = options.windowMs ?? 15 * 60_000;
  // `account` is the caller's one spelling per account (auth-routes.ts: the stored address of the
  // account reached, else the normalised address typed), taken as given: two older accounts whose
  // addresses normalise alike must not share a count.
  const pairHash = (account: string, ip: string) => createHash("sha256").update(`${account}\u0000${ip}`).digest("hex");

  return {
    /**
     * Claims one attempt: counts it as a failure now, in one transaction, and answers 0 when it may
     * go ahead, else the milliseconds until the pair's window ends. A claimed attempt stays a
     * failure unless recordSuccess clears the pair, or release hands it back (the attempt was
     * refused for another reason before its password was checked).
     */
    async claimAttempt(email: string, ip: string): Promise<number> {
      const now = clock();
      const expired = now - windowMs;
      const key = pairHash(email, ip);
      const row = await db.transaction(async (tx) => {
        await tx.execute(
          `INSERT INTO login_failures (pair_hash, failures, since) VALUES ($1, 1, $2)
           ON CONFLICT (pair_hash) DO UPDATE SET
             failures = CASE WHEN login_failures.since <= $3 OR login_failures.since > $4 THEN 1 ELSE login_failures.failures + 1 END,
             since = CASE WHEN login_failures.since <= $3 OR login_failures.since > $4 THEN $2 ELSE login_failures.since END`,
          // A count started more than a window ahead of now (a clock stepped back, a replica's clock
          // ahead) starts again: it had locked the pair for the step plus the window (75 minutes
          // after a step back of an hour; audit, session 52).
          [key, now, expired, now + windowMs],
        );
        return (await tx.query<{ failures: unknown; since: unknown }>(`SELECT failures, since FROM login_failures WHERE pair_hash = $1`, [key]))[0];
      });
      // Housekeeping on attempts keeps the table to about one window of them.
      await db.execute(`DELETE FROM login_failures WHERE since <= $1`, [expired]);
      if (!row || toNumber(row.failures) <= maxFailures) return 0;
      return Math.min(windowMs, Math.max(0, toNumber(row.since) + windowMs - now));
    },
    /** Hands back an attempt claimed and then refused before its password was checked. */
    async release(email: string, ip: string): Promise<void> {
      await db.execute(`UPDATE login_failures SET failures = failures - 1 WHERE pair_hash = $1 AND failures > 0`, [pairHash(email, ip)]);
    },
    async recordSuccess(email: string, ip: string): Promise<void> {
      await db.execute(`DELETE FROM login_failures WHERE pair_hash = $1`, [pairHash(email, ip)]);
    },
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
