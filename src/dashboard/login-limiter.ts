import { createHash } from "node:crypto";
import type { Database } from "../storage/database.js";
import { toNumber } from "../storage/database.js";

/**
 * Failed log-ins per (email, client IP): after `maxFailures` within `windowMs` of the first, the
 * pair is refused until that window ends; a successful log-in clears it. Counted in SQL (the
 * login_failures table), so every replica on the same database and every restart share one
 * count: an attacker gets `maxFailures` guesses per window, not per process. Only a hash of the
 * pair is stored.
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
    /** Milliseconds until another attempt is allowed, or 0 when it is allowed now. */
    async retryAfterMs(email: string, ip: string): Promise<number> {
      const rows = await db.query<{ failures: unknown; since: unknown }>(`SELECT failures, since FROM login_failures WHERE pair_hash = $1`, [pairHash(email, ip)]);
      const row = rows[0];
      if (!row || toNumber(row.failures) < maxFailures) return 0;
      return Math.max(0, toNumber(row.since) + windowMs - clock());
    },
    /** Counts a failure in one statement, so concurrent failures (other replicas too) all count. */
    async recordFailure(email: string, ip: string): Promise<void> {
      const now = clock();
      const expired = now - windowMs;
      await db.execute(
        `INSERT INTO login_failures (pair_hash, failures, since) VALUES ($1, 1, $2)
         ON CONFLICT (pair_hash) DO UPDATE SET
           failures = CASE WHEN login_failures.since <= $3 THEN 1 ELSE login_failures.failures + 1 END,
           since = CASE WHEN login_failures.since <= $3 THEN $2 ELSE login_failures.since END`,
        [pairHash(email, ip), now, expired],
      );
      // Housekeeping on failures keeps the table to about one window of them.
      await db.execute(`DELETE FROM login_failures WHERE since <= $1`, [expired]);
    },
    async recordSuccess(email: string, ip: string): Promise<void> {
      await db.execute(`DELETE FROM login_failures WHERE pair_hash = $1`, [pairHash(email, ip)]);
    },
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;
