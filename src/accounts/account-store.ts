import { isBrowserEmail, normalizeEmail } from "../base/email-address.js";
import { ApiError, quotedId } from "../errors/api-error.js";
import { canNameStoredRow } from "../storage/storage-errors.js";
import type { Database } from "../storage/database.js";
import { toNumber, toOptionalNumber } from "../storage/database.js";
import { generateApiKey, hashApiKey, looksLikeApiKey } from "./api-key-format.js";
import { createCallerCache } from "./caller-cache.js";
import { newId } from "./ids.js";
import { isPlan, requestsPerMinute, type Plan } from "./plans.js";

export interface Account {
  id: string;
  email: string;
  plan: Plan;
  customRpm: number | null;
  requestsPerMinute: number;
  createdAt: number;
  /** Set by `modctl account disable`: its keys and dashboard sessions stop working. */
  disabledAt: number | null;
}

export interface ApiKeyInfo {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** Who is calling, as the auth interceptor hands it to the rest of the chain. */
export interface Caller {
  accountId: string;
  keyId: string;
  plan: Plan;
  requestsPerMinute: number;
}

const KEY_COLUMNS = "id, account_id, name, prefix, created_at, last_used_at, revoked_at";

const ACCOUNT_COLUMNS = "id, email, plan, custom_rpm, created_at, disabled_at";

type AccountRow = { id: string; email: string; plan: string; custom_rpm: unknown; created_at: unknown; disabled_at: unknown };
type KeyRow = {
  id: string; account_id: string; name: string; prefix: string;
  created_at: unknown; last_used_at: unknown; revoked_at: unknown;
};

export interface RotateOptions {
  /**
   * Run inside the rotation's transaction once the successor exists, to carry what is stored by
   * the old key's id (its policy override: policy-store.ts carryKeyOverride); its failure undoes
   * the rotation.
   */
  carryOver?: (tx: Database, fromKeyId: string, toKeyId: string) => Promise<void>;
}

/**
 * The largest custom limit: the custom_rpm column is a 32-bit integer on PostgreSQL, and a larger
 * number stored on SQLite (10^20 was) made every call of the account fail with internal_error.
 */
export const MAX_CUSTOM_RPM = 2_147_483_647;
/** Live API keys one account may hold: far more than deployments and rotations need. */
const MAX_ACTIVE_KEYS = 100;
/** Keys of disabled accounts remembered for the refusal's message (isKeyOfDisabledAccount). */
const MAX_REMEMBERED_DISABLED_KEYS = 10_000;

function checkPlan(plan: string, rpm: number | undefined): { plan: Plan; customRpm: number | null } {
  if (!isPlan(plan)) throw new ApiError("invalid_request", `Unknown plan "${plan}"; use free, basic, pro or enterprise.`);
  if (plan === "enterprise") {
    if (rpm === undefined || !Number.isInteger(rpm) || rpm <= 0 || rpm > MAX_CUSTOM_RPM) {
      throw new ApiError("invalid_request", `The enterprise plan needs a custom limit: a whole number of requests per minute from 1 to ${MAX_CUSTOM_RPM}.`);
    }
    return { plan, customRpm: rpm };
  }
  if (rpm !== undefined) throw new ApiError("invalid_request", `A custom limit applies to the enterprise plan only, not "${plan}".`);
  return { plan, customRpm: null };
}

/** Accounts and API keys, on either SQL driver. */
export function createAccountStore(db: Database, clock: () => number = Date.now) {
  // Only where the driver can tell cheaply that something changed (SQLite); see caller-cache.
  const callerCache = db.changeToken ? createCallerCache<Caller>(db.changeToken.bind(db)) : undefined;
  // Hashes of the keys authenticate() last read as live keys of a disabled account, from its own
  // query (isKeyOfDisabledAccount): naming the disabled account in a refusal costs no query, so a
  // flood of refused keys costs the database no more than before. Bounded; only a message reads it.
  const disabledKeys = new Set<string>();
  const toAccount = (row: AccountRow): Account => {
    const plan = row.plan as Plan;
    const customRpm = toOptionalNumber(row.custom_rpm);
    return { id: row.id, email: row.email, plan, customRpm, requestsPerMinute: requestsPerMinute(plan, customRpm), createdAt: toNumber(row.created_at), disabledAt: toOptionalNumber(row.disabled_at) };
  };
  const toKey = (row: KeyRow): ApiKeyInfo => ({
    id: row.id, accountId: row.account_id, name: row.name, prefix: row.prefix,
    createdAt: toNumber(row.created_at), lastUsedAt: toOptionalNumber(row.last_used_at), revokedAt: toOptionalNumber(row.revoked_at),
  });
  const recordEvent = (tx: Database, keyId: string, accountId: string, event: string) =>
    tx.execute(`INSERT INTO key_events (id, key_id, account_id, event, at) VALUES ($1, $2, $3, $4, $5)`, [newId("kev"), keyId, accountId, event, clock()]);

  /** Holds the account's row until the transaction ends (PostgreSQL; SQLite's transactions run one at a time), so two key creations cannot both pass the count. */
  const lockAccount = async (tx: Database, accountId: string): Promise<void> => {
    const owner = await tx.query(`SELECT id FROM accounts WHERE id = $1${tx.dialect === "postgres" ? " FOR UPDATE" : ""}`, [accountId]);
    if (owner.length === 0) throw new ApiError("not_found", `No account with id "${accountId}".`);
  };

  /** Inserts a new key named `name` (cleaned) and logs its creation; the secret is returned once. */
  const insertKey = async (tx: Database, accountId: string, name: string): Promise<{ id: string; key: string }> => {
    // Control and format characters (an ESC colour code, a NUL, a right-to-left override) are no
    // part of a name a person reads; the zero-width joiner of an emoji sequence stays.
    // At most 100 characters as a reader counts them (graphemes: a family emoji is one), so a
    // cut never splits a surrogate pair (SQLite stored such a cut as bytes that are not UTF-8,
    // PostgreSQL as U+FFFD: the two stores showed different names) nor an emoji sequence.
    const cleanName = firstGraphemes(name.replace(/(?!\u200d)[\p{Cc}\p{Cf}\p{Cs}]/gu, "").trim(), 100).trim() || "default";
    const generated = generateApiKey();
    const id = newId("key");
    await tx.execute(
      `INSERT INTO api_keys (id, account_id, name, prefix, secret_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, accountId, cleanName, generated.prefix, generated.hash, clock()],
    );
    await recordEvent(tx, id, accountId, "created");
    return { id, key: generated.key };
  };

  return {
    async createAccount(input: { email: string; plan: string; rpm?: number; passwordHash?: string }): Promise<Account> {
      const email = normalizeEmail(input.email);
      // An address the dashboard's email field can send (isBrowserEmail: ASCII only, so no control
      // or format characters, which let `modctl account list` show another address), with a dot in
      // its domain; at most 254 bytes, the limit of a path in SMTP.
      if (!isBrowserEmail(email) || !email.slice(email.indexOf("@")).includes(".") || Buffer.byteLength(email) > 254) {
        throw new ApiError("invalid_request", "Give a valid email address.");
      }
      const { plan, customRpm } = checkPlan(input.plan, input.rpm);
      const id = newId("acct");
      try {
        await db.execute(
          `INSERT INTO accounts (id, email, plan, custom_rpm, password_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
          [id, email, plan, customRpm, input.passwordHash ?? null, clock()],
        );
      } catch (error) {
        // The UNIQUE constraint on email decides, also between two sign-ups racing for one email.
        if (/unique|duplicate/i.test(String(error))) throw new ApiError("email_taken", "An account with this email already exists.");
        throw error;
      }
      return (await this.getAccount(id))!;
    },

    async getAccount(id: string): Promise<Account | undefined> {
      if (!canNameStoredRow(id)) return undefined;
      const rows = await db.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`, [id]);
      return rows[0] ? toAccount(rows[0]) : undefined;
    },

    async findAccountByEmail(email: string): Promise<(Account & { passwordHash: string | null }) | undefined> {
      if (!canNameStoredRow(email)) return undefined;
      const rows = await db.query<AccountRow & { password_hash: string | null }>(
        `SELECT ${ACCOUNT_COLUMNS}, password_hash FROM accounts WHERE email = $1 OR email = $2 ORDER BY email = $2 DESC LIMIT 1`,
        // Also as stored before session 32 (trimmed and lower-cased only), so such an account still
        // signs in; where both exist, the spelling typed exactly wins.
        [normalizeEmail(email), email.trim().toLowerCase()],
      );
      return rows[0] ? { ...toAccount(rows[0]), passwordHash: rows[0].password_hash } : undefined;
    },

    /** Accounts in creation order, `limit` at a time after the cursor `after` (an account id). */
    async listAccounts(options: { limit?: number; after?: string } = {}): Promise<Account[]> {
      const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
      const rows = options.after
        ? await db.query<AccountRow>(
          `SELECT ${ACCOUNT_COLUMNS} FROM accounts
            WHERE (created_at, id) > (SELECT created_at, id FROM accounts WHERE id = $1)
            ORDER BY created_at, id LIMIT $2`, [options.after, limit])
        : await db.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, id LIMIT $1`, [limit]);
      return rows.map(toAccount);
    },

    /**
     * Disables or re-enables an account. Disabling also ends its dashboard sessions; its keys are
     * refused from the next request on every replica, because authenticate() reads disabled_at
     * with the key (and the SQLite caller cache empties on any committed change).
     */
    async setDisabled(accountId: string, disabled: boolean): Promise<Account> {
      await db.transaction(async (tx) => {
        const changed = disabled
          ? await tx.execute(`UPDATE accounts SET disabled_at = $1 WHERE id = $2 AND disabled_at IS NULL`, [clock(), accountId])
          : await tx.execute(`UPDATE accounts SET disabled_at = NULL WHERE id = $1 AND disabled_at IS NOT NULL`, [accountId]);
        if (changed === 0 && (await tx.query(`SELECT id FROM accounts WHERE id = $1`, [accountId])).length === 0) {
          throw new ApiError("not_found", `No account with id "${accountId}".`);
        }
        if (disabled) await tx.execute(`DELETE FROM dashboard_sessions WHERE account_id = $1`, [accountId]);
      });
      return (await this.getAccount(accountId))!;
    },

    /**
     * Replaces the dashboard password hash and ends every session of the account. With `replacing`,
     * only while that hash is the account's; false (nothing changed) once another has replaced it.
     */
    async setPasswordHash(accountId: string, passwordHash: string, options: { replacing?: string } = {}): Promise<boolean> {
      return db.transaction(async (tx) => {
        // With `replacing`, only if that is still the stored hash (conditional, not "read, then
        // write"): two changes at once, each checked against the old password, were both told
        // "Password changed" and only one of the new passwords logged in (a race audit).
        const changed = options.replacing === undefined
          ? await tx.execute(`UPDATE accounts SET password_hash = $1 WHERE id = $2`, [passwordHash, accountId])
          : await tx.execute(`UPDATE accounts SET password_hash = $1 WHERE id = $2 AND password_hash = $3`, [passwordHash, accountId, options.replacing]);
        if (changed === 0 && options.replacing !== undefined) return false;
        if (changed === 0) throw new ApiError("not_found", `No account with id "${accountId}".`);
        await tx.execute(`DELETE FROM dashboard_sessions WHERE account_id = $1`, [accountId]);
        return true;
      });
    },

    async setPlan(accountId: string, planName: string, rpm?: number): Promise<Account> {
      const { plan, customRpm } = checkPlan(planName, rpm);
      const changed = await db.execute(`UPDATE accounts SET plan = $1, custom_rpm = $2 WHERE id = $3`, [plan, customRpm, accountId]);
      if (changed === 0) throw new ApiError("not_found", `No account with id "${accountId}".`);
      return (await this.getAccount(accountId))!;
    },

    /**
     * Creates a key and returns its secret: the only time the secret is ever available. An account
     * holds at most MAX_ACTIVE_KEYS live keys (3,000 made in 6 s had turned its keys page into 3.5 MB).
     */
    async createKey(accountId: string, name = "default"): Promise<ApiKeyInfo & { key: string }> {
      const created = await db.transaction(async (tx) => {
        await lockAccount(tx, accountId);
        const live = await tx.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL`, [accountId]);
        if (toNumber(live[0]?.n ?? 0) >= MAX_ACTIVE_KEYS) {
          throw new ApiError("too_many_keys", `An account holds at most ${MAX_ACTIVE_KEYS} active API keys: revoke one it no longer uses first.`);
        }
        return insertKey(tx, accountId, name);
      });
      return { ...(await this.getKey(created.id))!, key: created.key };
    },

    /**
     * Replaces a live key of the account by a new one of the same name, in one transaction: the old
     * key is revoked only if it was live (conditional, so two rotations at once cannot both succeed
     * and leave two new keys), and the new one exists exactly when it is. A key of another account
     * looks exactly like a missing one.
     */
    async rotateKey(keyId: string, accountId: string, options: RotateOptions = {}): Promise<{ key: ApiKeyInfo & { key: string }; rotatedFrom: ApiKeyInfo }> {
      const created = await db.transaction(async (tx) => {
        const old = canNameStoredRow(keyId) ? (await tx.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1 AND account_id = $2`, [keyId, accountId]))[0] : undefined;
        const changed = old ? await tx.execute(`UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, [clock(), keyId]) : 0;
        if (!old || changed !== 1) throw new ApiError("not_found", `No active API key with id ${quotedId(keyId)}.`);
        await recordEvent(tx, keyId, accountId, "revoked");
        const successor = await insertKey(tx, accountId, old.name);
        await options.carryOver?.(tx, keyId, successor.id);
        return successor;
      });
      return { key: { ...(await this.getKey(created.id))!, key: created.key }, rotatedFrom: (await this.getKey(keyId))! };
    },

    async getKey(keyId: string): Promise<ApiKeyInfo | undefined> {
      if (!canNameStoredRow(keyId)) return undefined;
      const rows = await db.query<KeyRow>(
        `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [keyId]);
      return rows[0] ? toKey(rows[0]) : undefined;
    },

    async listKeys(accountId: string): Promise<ApiKeyInfo[]> {
      const rows = await db.query<KeyRow>(
        `SELECT ${KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at DESC, id`,
        [accountId],
      );
      return rows.map(toKey);
    },

    /**
     * Revokes a key. With `accountId`, only that account's key can be revoked, and a key of
     * another account looks exactly like a missing one (no way to probe other accounts' ids).
     */
    async revokeKey(keyId: string, options: { accountId?: string } = {}): Promise<ApiKeyInfo> {
      if (!canNameStoredRow(keyId)) throw new ApiError("not_found", `No API key with id ${quotedId(keyId)}.`);
      return db.transaction(async (tx) => {
        const rows = await tx.query<KeyRow>(
          `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [keyId]);
        const row = rows[0];
        if (!row || (options.accountId !== undefined && row.account_id !== options.accountId)) {
          throw new ApiError("not_found", `No API key with id ${quotedId(keyId)}.`);
        }
        // Conditional, not "read, then write": under PostgreSQL's READ COMMITTED two revokes at
        // once both read the key live, and the second moved revoked_at and logged a second event.
        const changed = await tx.execute(`UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`, [clock(), keyId]);
        if (changed === 1) await recordEvent(tx, keyId, row.account_id, "revoked");
        return toKey((await tx.query<KeyRow>(
          `SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [keyId]))[0]!);
      });
    },

    /**
     * The caller for `key` when the answer is known without a query (the caller cache, valid while
     * the store is unchanged), else undefined: authenticate() then asks the store. Lets auth skip a
     * promise turn per request.
     */
    cachedCaller(key: string): { caller: Caller | undefined } | undefined {
      if (!looksLikeApiKey(key)) return { caller: undefined };
      const cached = callerCache?.get(hashApiKey(key));
      return cached?.found ? { caller: cached.caller } : undefined;
    },

    /**
     * Resolves a presented key to its caller, reading plan and limit fresh on every call so
     * revocations and plan changes (even from modctl in another process) apply at once.
     */
    async authenticate(key: string): Promise<Caller | undefined> {
      if (!looksLikeApiKey(key)) return undefined;
      const hash = hashApiKey(key);
      const cached = callerCache?.get(hash);
      if (cached?.found) return cached.caller;
      const tokenBefore = callerCache?.token() ?? "";
      const rows = await db.query<{ key_id: string; account_id: string; plan: string; custom_rpm: unknown; disabled_at: unknown }>(
        `SELECT k.id AS key_id, a.id AS account_id, a.plan, a.custom_rpm, a.disabled_at
           FROM api_keys k JOIN accounts a ON a.id = k.account_id
          WHERE k.secret_hash = $1 AND k.revoked_at IS NULL`,
        [hash],
      );
      const found = rows[0];
      const disabled = found !== undefined && found.disabled_at !== null && found.disabled_at !== undefined;
      if (!disabled) disabledKeys.delete(hash);
      else {
        if (disabledKeys.size >= MAX_REMEMBERED_DISABLED_KEYS) disabledKeys.delete(disabledKeys.values().next().value!);
        disabledKeys.add(hash);
      }
      const row = disabled ? undefined : found;
      const plan = row?.plan as Plan;
      const caller = row && { accountId: row.account_id, keyId: row.key_id, plan, requestsPerMinute: requestsPerMinute(plan, toOptionalNumber(row.custom_rpm)) };
      callerCache?.set(hash, caller, tokenBefore);
      return caller;
    },

    /**
     * Whether `key`, which authenticate() found no caller for, is a live key of a disabled account,
     * as authenticate() last read it: asked only on the way to an invalid_api_key refusal, so that
     * the caller holding the key is told its own account is disabled (it learns nothing of other
     * accounts).
     */
    isKeyOfDisabledAccount(key: string): boolean {
      return looksLikeApiKey(key) && disabledKeys.has(hashApiKey(key));
    },

    /** last_used_at is display information, so it is written at most once a minute per key. */
    async markUsed(keyIds: Iterable<string>, at: number): Promise<void> {
      for (const keyId of keyIds) {
        await db.execute(`UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)`, [at, keyId, at - 60_000]);
      }
    },
  };
}

export type AccountStore = ReturnType<typeof createAccountStore>;

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * The first `count` graphemes of `text`, and no more than four times as many code points: one
 * grapheme has no bound of its own ("a" and a thousand accents), so names grew to kilobytes.
 */
function firstGraphemes(text: string, count: number): string {
  if (text.length <= count) return text;
  let out = "";
  let taken = 0;
  let codePoints = 0;
  for (const { segment } of graphemes.segment(text)) {
    codePoints += [...segment].length;
    if (taken++ === count || codePoints > 4 * count) break;
    out += segment;
  }
  return out;
}
