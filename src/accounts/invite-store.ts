import { createHash, randomBytes } from "node:crypto";
import type { Database } from "../storage/database.js";
import { toNumber, toOptionalNumber } from "../storage/database.js";

interface Invite {
  prefix: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  usedBy: string | null;
}

const hashCode = (code: string) => createHash("sha256").update(code.trim()).digest("hex");
type InviteRow = { prefix: string; created_at: unknown; expires_at: unknown; used_at: unknown; used_by: string | null };

/**
 * One-time sign-up codes for SIGNUP=invite. The code is printed once by `modctl invite create`;
 * only its SHA-256 and a short prefix (to tell codes apart in a list) are stored.
 */
export function createInviteStore(db: Database, clock: () => number = Date.now) {
  const toInvite = (row: InviteRow): Invite => ({
    prefix: row.prefix, createdAt: toNumber(row.created_at), expiresAt: toNumber(row.expires_at),
    usedAt: toOptionalNumber(row.used_at), usedBy: row.used_by,
  });
  return {
    async create(validForMs: number): Promise<Invite & { code: string }> {
      const code = `inv_${randomBytes(18).toString("base64url")}`;
      const now = clock();
      const prefix = code.slice(0, 8);
      await db.execute(
        `INSERT INTO signup_invites (code_hash, prefix, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
        [hashCode(code), prefix, now, now + validForMs]);
      return { code, prefix, createdAt: now, expiresAt: now + validForMs, usedAt: null, usedBy: null };
    },

    async list(): Promise<Invite[]> {
      const rows = await db.query<InviteRow>(`SELECT prefix, created_at, expires_at, used_at, used_by FROM signup_invites ORDER BY created_at, prefix`);
      return rows.map(toInvite);
    },

    /**
     * Takes a code for one sign-up: true when it was unused and unexpired. The single UPDATE
     * decides, so two sign-ups racing for one code cannot both win.
     */
    async claim(code: string): Promise<boolean> {
      if (!/^inv_[A-Za-z0-9_-]{24}$/.test(code.trim())) return false;
      const now = clock();
      const changed = await db.execute(
        `UPDATE signup_invites SET used_at = $1 WHERE code_hash = $2 AND used_at IS NULL AND expires_at > $1`,
        [now, hashCode(code)]);
      return changed === 1;
    },

    /** Records who used a claimed code, or hands it back when the sign-up failed after claiming. */
    async settle(code: string, accountId: string | undefined): Promise<void> {
      if (accountId) await db.execute(`UPDATE signup_invites SET used_by = $1 WHERE code_hash = $2`, [accountId, hashCode(code)]);
      else await db.execute(`UPDATE signup_invites SET used_at = NULL WHERE code_hash = $1 AND used_by IS NULL`, [hashCode(code)]);
    },
  };
}

export type InviteStore = ReturnType<typeof createInviteStore>;
