import { createHash, randomBytes } from "node:crypto";
import { cleanUpNow } from "../storage/database-clock.js";
import type { Database, SqlValue } from "../storage/database.js";
import { toNumber } from "../storage/database.js";

export const SESSION_TTL_MS = 7 * 86_400_000;

export interface Session {
  /** The raw token from the cookie; never stored, only its hash is. */
  token: string;
  accountId: string;
  expiresAt: number;
}

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** Server-side sessions in SQL: logging out (or deleting the row) ends a session at once. */
export function createSessionStore(db: Database, clock: () => number) {
  /**
   * Runs `insert` for a new token: its $1..$4 are the token hash, account id, created_at and
   * expires_at, then `more`. Undefined when it inserted no row.
   */
  const open = async (accountId: string, insert: string, more: readonly SqlValue[] = []): Promise<Session | undefined> => {
    const token = randomBytes(32).toString("base64url");
    const now = clock();
    const expiresAt = now + SESSION_TTL_MS;
    const inserted = await db.execute(insert, [hashToken(token), accountId, now, expiresAt, ...more]);
    // Housekeeping on log-in is frequent enough to keep the table small.
    // By the earlier of our clock and the database's: a process days ahead deleted every session.
    await db.execute(`DELETE FROM dashboard_sessions WHERE expires_at < $1`, [await cleanUpNow(db, now)]);
    return inserted === 1 ? { token, accountId, expiresAt } : undefined;
  };

  return {
    /** A session for the account, whatever its password and state: sign-up's account is brand new. */
    async create(accountId: string): Promise<Session> {
      const session = await open(accountId, `INSERT INTO dashboard_sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`);
      return session!; // an unconditional insert adds its row or throws
    },

    /**
     * A session only while `passwordHash`, the hash a log-in just checked, is still the account's and
     * the account is not disabled, decided in the insert itself: a password change or a disabling
     * ends every session of the account, and one committed while scrypt ran must not be outlived by
     * a session made after it. Undefined when one was.
     */
    async createIfPasswordIs(accountId: string, passwordHash: string): Promise<Session | undefined> {
      // FOR SHARE (PostgreSQL) waits for a change of the row in flight and then reads its outcome;
      // a plain read could see the old hash, and the insert land after that change's delete had run.
      // SQLite runs one write at a time, and this statement is one.
      return open(accountId,
        `INSERT INTO dashboard_sessions (token_hash, account_id, created_at, expires_at)
         SELECT $1, id, CAST($3 AS BIGINT), CAST($4 AS BIGINT) FROM accounts
          WHERE id = $2 AND password_hash = $5 AND disabled_at IS NULL${db.dialect === "postgres" ? " FOR SHARE" : ""}`,
        [passwordHash]);
    },

    async find(token: string): Promise<Session | undefined> {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
      const rows = await db.query<{ account_id: string; expires_at: unknown }>(
        `SELECT account_id, expires_at FROM dashboard_sessions WHERE token_hash = $1`, [hashToken(token)]);
      const row = rows[0];
      if (!row || toNumber(row.expires_at) <= clock()) return undefined;
      return { token, accountId: row.account_id, expiresAt: toNumber(row.expires_at) };
    },

    async destroy(token: string): Promise<void> {
      await db.execute(`DELETE FROM dashboard_sessions WHERE token_hash = $1`, [hashToken(token)]);
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
