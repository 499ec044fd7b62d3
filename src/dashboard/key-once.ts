import { randomBytes } from "node:crypto";
import type { Database } from "../storage/database.js";
import { toNumber } from "../storage/database.js";

/** How long a create-key form's token is remembered: a resend after that makes a new key. */
export const REMEMBER_MS = 10 * 60_000;

/** A fresh token for one rendering of the create-key form. */
export function newFormToken(): string {
  return randomBytes(16).toString("base64url");
}

const TOKEN = /^[A-Za-z0-9_-]{22}$/;

/** A form's key, and the key an earlier post of the same form made and this post revoked. */
export interface KeyOnceResult<K, R> {
  key: K;
  replaced: R | undefined;
}

/**
 * One live key per create-key form. A double click, or a reload of the page that answered, sends
 * the form again: each post made a live key, and the page the browser kept showed only the last
 * one's secret (the others were live credentials nobody saw, counted toward the 100-key cap). Now
 * a post repeating a token waits for the one before, revokes the key it made and makes a new one:
 * the page shown holds the secret of the one key left. The revoked key is returned too, so the
 * page can say that the secret shown before (perhaps copied) no longer works.
 *
 * The token's key is kept in SQL (dashboard_key_forms), claimed, revoked, created and recorded in
 * one transaction: a resend reaching another replica made a second live key while the token lived
 * in one process's memory. `create` and `revoke` get the transaction's handle and must use it.
 */
export function createKeyOnce(deps: { db: Database; clock: () => number }) {
  const { db, clock } = deps;
  // Posts of one form within this process go in arrival order (the row lock alone would let a
  // later post commit first, and the page the browser shows would hold a revoked key).
  const inFlight = new Map<string, Promise<unknown>>();
  return async <K extends { id: string }, R>(
    accountId: string,
    token: unknown,
    create: (tx: Database) => Promise<K>,
    revoke: (tx: Database, keyId: string) => Promise<R | undefined>,
  ): Promise<KeyOnceResult<K, R>> => {
    if (typeof token !== "string" || !TOKEN.test(token)) return { key: await db.transaction(create), replaced: undefined };
    const slot = `${accountId}:${token}`;
    const before = inFlight.get(slot);
    const attempt = (async () => {
      await before;
      return createOnce(db, clock(), accountId, token, create, revoke);
    })();
    const settled = attempt.catch(() => undefined);
    inFlight.set(slot, settled);
    void settled.then(() => inFlight.get(slot) === settled && inFlight.delete(slot));
    return attempt;
  };
}

async function createOnce<K extends { id: string }, R>(
  db: Database, now: number, accountId: string, token: string,
  create: (tx: Database) => Promise<K>, revoke: (tx: Database, keyId: string) => Promise<R | undefined>,
): Promise<KeyOnceResult<K, R>> {
  // Housekeeping on posts keeps the table to about REMEMBER_MS of forms; outside the transaction,
  // so it never waits on, or holds, another form's row.
  await db.execute(`DELETE FROM dashboard_key_forms WHERE used_at <= $1`, [now - REMEMBER_MS]);
  return db.transaction(async (tx) => {
    // An upsert, not "insert if absent": DO UPDATE locks the row (PostgreSQL), so a post of the
    // same form on another replica waits here until this one commits, then reads its key.
    await tx.execute(
      `INSERT INTO dashboard_key_forms (account_id, token, key_id, used_at) VALUES ($1, $2, NULL, $3)
       ON CONFLICT (account_id, token) DO UPDATE SET used_at = dashboard_key_forms.used_at`,
      [accountId, token, now],
    );
    const row = (await tx.query<{ key_id: string | null; used_at: unknown }>(
      `SELECT key_id, used_at FROM dashboard_key_forms WHERE account_id = $1 AND token = $2`, [accountId, token]))[0];
    // Revoked first, so a resend at the key cap still makes its key.
    const replaced = row?.key_id && toNumber(row.used_at) > now - REMEMBER_MS ? await revoke(tx, row.key_id) : undefined;
    const key = await create(tx);
    await tx.execute(`UPDATE dashboard_key_forms SET key_id = $1, used_at = $2 WHERE account_id = $3 AND token = $4`, [key.id, now, accountId, token]);
    return { key, replaced };
  });
}
