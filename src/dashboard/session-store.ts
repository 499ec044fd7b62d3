import { createHash, randomBytes } from "node:crypto";
import type { Database } from "../storage/database.js";
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
  return {
    async create(accountId: string): Promise<Session> {
      const token = randomBytes(32).toString("base64url");
      const now = clock();
      const expiresAt = now + SESSION_TTL_MS;
      await db.execute(
        `INSERT INTO dashboard_sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
        [hashToken(token), accountId, now, expiresAt],
      );
      // Housekeeping on log-in is frequent enough to keep the table small.
      await db.execute(`DELETE FROM dashboard_sessions WHERE expires_at < $1`, [now]);
      return { token, accountId, expiresAt };
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
