import { createCallerCache } from "../accounts/caller-cache.js";
import { newId } from "../accounts/ids.js";
import { ApiError, quotedId } from "../errors/api-error.js";
import { toNumber, type Database } from "../storage/database.js";
import { compilePolicyCooperatively, type CompiledPolicy } from "./apply-policy.js";
import { TERM_LINE_BREAK, validatePolicyRulesCooperatively, type Policy, type PolicyRules } from "./policy.js";

/** Which policy a change or a read is about: the account's own, or one key's override. */
export interface PolicyScope {
  accountId: string;
  /** A key id for that key's override; absent for the account's policy. */
  keyId?: string;
}

/** One recorded change: who made `version` from `previousVersion` (0 when there was none), and when. */
export interface PolicyChange {
  policyId: string;
  scope: "account" | "key";
  keyId: string | undefined;
  version: number;
  previousVersion: number;
  changedAt: number;
  changedBy: string;
  /** The change removed the scope's policy (remove()). */
  removed: boolean;
}

interface VersionRow extends Record<string, unknown> {
  policy_id: string;
  scope: string;
  version: unknown;
  rules: string;
  changed_at: unknown;
  changed_by: string;
}

/**
 * Holds the key's row until the transaction ends, or refuses (not_found) when the key is not a live
 * key of the account. Checked in the transaction that writes the key's override: checked before
 * it, a rotation or revocation committing in between left the new override on the revoked key,
 * where no call reads it, while the successor kept the old one (found by a race audit, up to 6 of
 * 8 tries with a large draft). On PostgreSQL the row lock orders the write and a rotation or a
 * revocation (whose UPDATE of the row waits, then carries the new version over or finds it
 * written first); SQLite's writers are serialised.
 */
async function lockLiveKey(tx: Database, accountId: string, keyId: string): Promise<void> {
  const live = await tx.query(
    `SELECT id FROM api_keys WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL${tx.dialect === "postgres" ? " FOR NO KEY UPDATE" : ""}`,
    [keyId, accountId],
  );
  if (live.length === 0) throw new ApiError("not_found", `No live key ${quotedId(keyId)} in this account: a revoked key's calls are refused, so no policy applies to them (a rotated key's override is its successor's).`);
}

/** Whether `rules` are those of `inForce` (the scope's policy now; undefined when it has none). */
export type SameRules = (rules: PolicyRules, inForce: Policy | undefined) => boolean;

/** What insertNext did: stored a version, or found the rules already in force. */
type Inserted = { id: string; version: number } | { unchanged: Policy | undefined };

/**
 * The rules column of a version that removes the scope's policy (policy_versions keeps every change,
 * so a removal is a version too). After it the scope has no policy: a key's calls fall back to the
 * account's policy, the account's to the model's thresholds, until a later version sets one again.
 */
const REMOVED = "null";

/** Policies whose compiled matcher is kept (each its newest version compiled in this process). */
const COMPILED_LIMIT = 1_000;

/**
 * Policies in the SQL store (table policy_versions, docs/policies.md): a change is a new version row,
 * so old versions and who made each change stay. The policy that applies to a call is the key's
 * override if it has one, else the account's, else none (the model's thresholds).
 *
 * Per-request reads are cached like API keys (accounts/caller-cache.ts): on SQLite, until any
 * committed change, from this process or another; on PostgreSQL, read fresh per request (only the
 * version is read; the rules and matcher of a version are compiled once). So a change applies on
 * the next request on every replica.
 */
export function createPolicyStore(db: Database, clock: () => number = Date.now) {
  const callerCache = db.changeToken ? createCallerCache<CompiledPolicy>(db.changeToken.bind(db)) : undefined;
  /**
   * Per policy id, its newest version compiled once: the promise, so that calls arriving while it
   * compiles wait for it. Only the newest is kept: every version was kept until 1,000 newer ones
   * pushed it out, about 1.8 MB each for 10,000 terms, so an account saving its policy often held
   * gigabytes of versions no call would read again (found by a soak test).
   */
  const compiled = new Map<string, { version: number; made: Promise<CompiledPolicy> }>();

  const scopeOf = (scope: PolicyScope) => scope.keyId ?? "";
  const toPolicy = (row: Pick<VersionRow, "policy_id" | "version" | "rules">): Policy => ({
    id: row.policy_id, version: toNumber(row.version), ...termsOnOneLine(JSON.parse(row.rules) as PolicyRules),
  });

  function compiledVersion(db: Database, accountId: string, row: { policy_id: string; scope: string; version: unknown }): Promise<CompiledPolicy> {
    const key = row.policy_id;
    const version = toNumber(row.version);
    const hit = compiled.get(key);
    if (hit?.version === version) {
      // Least recently used goes first (a Map keeps insertion order): evicting the oldest made
      // let one account's thousand new versions push out another account's policy in use.
      compiled.delete(key);
      compiled.set(key, hit);
      return hit.made;
    }
    const made = (async () => {
      const full = await db.query<VersionRow>(
        `SELECT policy_id, scope, version, rules, changed_at, changed_by FROM policy_versions WHERE account_id = $1 AND scope = $2 AND version = $3`,
        [accountId, row.scope, version],
      );
      return compilePolicyCooperatively(toPolicy(full[0]!));
    })();
    // An older version than the one kept (a call that read the row before a change): compiled for
    // that call, not kept in place of the newer.
    if (hit && hit.version > version) return made;
    compiled.delete(key);
    if (compiled.size >= COMPILED_LIMIT) compiled.delete(compiled.keys().next().value!);
    const entry = { version, made };
    compiled.set(key, entry);
    // A failed read (the database down) is not remembered: the next call tries again.
    made.catch(() => compiled.get(key) === entry && compiled.delete(key));
    return made;
  }

  /** Concurrent writers of one scope an update outlasts (5 failed the six-writer test now and then). */
  const MAX_UPDATE_ATTEMPTS = 32;

  /**
   * Stores `rules` as the scope's next version, unless `same` says the policy in force (read in
   * the same transaction) already has them: then nothing is stored and `saved` is false.
   */
  async function save(scope: PolicyScope, rules: PolicyRules, changedBy: string, same?: SameRules): Promise<{ policy: Policy | undefined; saved: boolean }> {
    const stored = (await insertWithRetries(scope, rules, changedBy, same))!;
    return "unchanged" in stored ? { policy: stored.unchanged, saved: false } : { policy: { ...stored, ...rules }, saved: true };
  }

  /** Stores `rules` (or REMOVED) as the scope's next version; undefined when there is nothing to remove. */
  function insertNext(scope: PolicyScope, rules: PolicyRules | typeof REMOVED, changedBy: string, same?: SameRules): Promise<Inserted | undefined> {
    return db.transaction(async (tx) => {
      // One writer of an account's policies at a time on PostgreSQL: 100-150 writers at once over
      // three processes ran out of the retries below now and then (500s, the changes not stored;
      // a race audit). The account's row is locked first, then a key's (lockLiveKey): always in
      // that order. NO KEY UPDATE: it excludes other such writers but not the key share a new key's
      // row takes on its account (a rotation holding the old key and inserting the new one
      // deadlocked with FOR UPDATE). SQLite's writers are serialised already.
      if (tx.dialect === "postgres") await tx.query(`SELECT id FROM accounts WHERE id = $1 FOR NO KEY UPDATE`, [scope.accountId]);
      // Whether the last version was a removal, not its rules (those can be megabytes), unless
      // `same` must compare them. Read in the transaction that inserts: two identical saves at once
      // both read version N, one writes N+1, and the other, retried, finds its rules in force.
      const last = await tx.query<{ policy_id: string; version: unknown; removed: unknown; rules?: string }>(
        `SELECT policy_id, version, rules = '${REMOVED}' AS removed${same ? ", rules" : ""} FROM policy_versions WHERE account_id = $1 AND scope = $2 ORDER BY version DESC LIMIT 1`,
        [scope.accountId, scopeOf(scope)],
      );
      if (rules === REMOVED && (!last[0] || isTrue(last[0].removed))) return undefined;
      if (scope.keyId !== undefined && rules !== REMOVED) await lockLiveKey(tx, scope.accountId, scope.keyId);
      if (same && rules !== REMOVED) {
        const inForce = last[0] && !isTrue(last[0].removed) ? toPolicy({ ...last[0], rules: last[0].rules! }) : undefined;
        if (same(rules, inForce)) return { unchanged: inForce };
      }
      const policyId = last[0]?.policy_id ?? newId("pol");
      const version = last[0] ? toNumber(last[0].version) + 1 : 1;
      await tx.execute(
        `INSERT INTO policy_versions (policy_id, account_id, scope, version, rules, changed_at, changed_by) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [policyId, scope.accountId, scopeOf(scope), version, rules === REMOVED ? REMOVED : JSON.stringify(rules), clock(), changedBy],
      );
      return { id: policyId, version };
    });
  }

  /** insertNext, retried on top of a concurrent writer's version. */
  async function insertWithRetries(scope: PolicyScope, rules: PolicyRules | typeof REMOVED, changedBy: string, same?: SameRules) {
    // Two changes at once (two replicas, or modctl beside the dashboard) may both read version N;
    // the primary key lets one write N+1 and the other retries on top of it. Each round one writer
    // wins, so k writers at once need up to k attempts: the bound is for a runaway, not for contention.
    for (let attempt = 1; ; attempt++) {
      try {
        return await insertNext(scope, rules, changedBy, same);
      } catch (error) {
        if (attempt >= MAX_UPDATE_ATTEMPTS || !isDuplicateKey(error)) throw error;
      }
    }
  }

  return {
    /**
     * forCaller's answer when the cache knows it (the store unchanged since it was read), else
     * undefined: a call then costs no promise turn for its policy (as cachedCaller does for its key).
     */
    cachedForCaller(accountId: string, keyId: string): { policy: CompiledPolicy | undefined } | undefined {
      const cached = callerCache?.get(`${accountId}\n${keyId}`);
      return cached?.found ? { policy: cached.caller } : undefined;
    },

    /** The policy that decides a call's flags, compiled; undefined when neither the key nor the account has one. */
    async forCaller(accountId: string, keyId: string): Promise<CompiledPolicy | undefined> {
      const cacheKey = `${accountId}\n${keyId}`;
      const cached = callerCache?.get(cacheKey);
      if (cached?.found) return cached.caller;
      const tokenBefore = callerCache?.token() ?? "";
      // The newest version of the key's override and of the account's policy, the key's first
      // ('' sorts first, so DESC): the first that is not a removal decides.
      const rows = await db.query<{ policy_id: string; scope: string; version: unknown; removed: unknown }>(
        `SELECT policy_id, scope, version, rules = '${REMOVED}' AS removed FROM policy_versions AS p
          WHERE account_id = $1 AND (scope = $2 OR scope = '')
            AND version = (SELECT MAX(version) FROM policy_versions AS q WHERE q.account_id = p.account_id AND q.scope = p.scope)
          ORDER BY scope DESC`,
        [accountId, keyId],
      );
      const deciding = rows.find((row) => !isTrue(row.removed));
      const policy = deciding ? await compiledVersion(db, accountId, deciding) : undefined;
      callerCache?.set(cacheKey, policy, tokenBefore);
      return policy;
    },

    /** The current policy of a scope exactly (no fallback from a key to its account), if any. */
    async current(scope: PolicyScope): Promise<Policy | undefined> {
      const rows = await db.query<VersionRow>(
        `SELECT policy_id, scope, version, rules, changed_at, changed_by FROM policy_versions
          WHERE account_id = $1 AND scope = $2 ORDER BY version DESC LIMIT 1`,
        [scope.accountId, scopeOf(scope)],
      );
      return rows[0] && rows[0].rules !== REMOVED ? toPolicy(rows[0]) : undefined;
    },

    /**
     * Validates `draft` (refusing it with the policy error codes) and stores it as the scope's next
     * version, recording who changed it. The caller must have checked that `keyId` is the account's.
     */
    async update(scope: PolicyScope, draft: unknown, changedBy: string): Promise<Policy> {
      return (await save(scope, await validatePolicyRulesCooperatively(draft), changedBy)).policy!;
    },

    /**
     * Stores `rules`, already validated (validatePolicyRulesCooperatively), as the scope's next
     * version unless `same(rules, policy in force)` holds (the dashboard's Save: a resent form or
     * Save with no edit makes no version); `policy` is then the one in force, `saved` false.
     */
    saveUnlessSame(scope: PolicyScope, rules: PolicyRules, changedBy: string, same: SameRules) {
      return save(scope, rules, changedBy, same);
    },

    /**
     * Removes the scope's policy, recorded as a version of its own (who and when, as for a change):
     * a key's calls then follow the account's policy again, the account's the model's thresholds.
     * Undefined when the scope has no policy to remove. The caller must have checked `keyId`.
     */
    async remove(scope: PolicyScope, changedBy: string): Promise<{ id: string; version: number } | undefined> {
      const removed = await insertWithRetries(scope, REMOVED, changedBy);
      if (!removed || "unchanged" in removed) return undefined;
      // No call reads a removed policy's matcher again (a later version compiles anew).
      compiled.delete(removed.id);
      return removed;
    },

    /** Policies whose compiled matcher this process keeps (what their memory costs; for tests). */
    compiledPolicies(): number {
      return compiled.size;
    },

    /**
     * A rotated key's override carried to its successor, inside the rotation's transaction `tx`
     * (account-store.ts rotateKey): the new secret's calls were judged without it, since overrides
     * are stored by key id (found by an audit). The successor's first version, under a policy id
     * of its own, records who rotated; nothing is written when the old key had no override.
     */
    async carryKeyOverride(tx: Database, accountId: string, fromKeyId: string, toKeyId: string, changedBy: string): Promise<void> {
      const last = await tx.query<{ rules: string }>(
        `SELECT rules FROM policy_versions WHERE account_id = $1 AND scope = $2 ORDER BY version DESC LIMIT 1`,
        [accountId, fromKeyId],
      );
      if (!last[0] || last[0].rules === REMOVED) return;
      await tx.execute(
        `INSERT INTO policy_versions (policy_id, account_id, scope, version, rules, changed_at, changed_by) VALUES ($1, $2, $3, 1, $4, $5, $6)`,
        [newId("pol"), accountId, toKeyId, last[0].rules, clock(), changedBy],
      );
    },

    /** Every change to the account's policies (its own and its keys'), newest first. */
    async history(accountId: string, limit = 100): Promise<PolicyChange[]> {
      const rows = await db.query<VersionRow & { removed: unknown }>(
        `SELECT policy_id, scope, version, changed_at, changed_by, rules = '${REMOVED}' AS removed FROM policy_versions
          WHERE account_id = $1 ORDER BY changed_at DESC, version DESC LIMIT $2`,
        [accountId, limit],
      );
      return rows.map((row) => ({
        policyId: row.policy_id,
        scope: row.scope === "" ? "account" : "key",
        keyId: row.scope === "" ? undefined : row.scope,
        version: toNumber(row.version),
        previousVersion: toNumber(row.version) - 1,
        changedAt: toNumber(row.changed_at),
        changedBy: row.changed_by,
        removed: isTrue(row.removed),
      }));
    },
  };
}

export type PolicyStore = ReturnType<typeof createPolicyStore>;

/** A boolean column as either driver returns it (PostgreSQL: true/false; SQLite: 1/0). */
function isTrue(value: unknown): boolean {
  return value === true || value === 1 || value === 1n;
}

/** A primary-key clash, as either driver reports it (PostgreSQL's SQLSTATE 23505, SQLite's constraint error). */
function isDuplicateKey(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === "23505" || /UNIQUE constraint|duplicate key/i.test(e.message)) return true;
  }
  return false;
}

/** Line breaks in a term, with the spaces around them: the one space they match as. */
const LINE_BREAKS_IN_TERM = new RegExp(String.raw`\s*${TERM_LINE_BREAK.source}+\s*`, "g");

/**
 * Terms as the versions before 2026-12-14 could store them: a line break inside one (refused since,
 * as the dashboard's form is a term per line) is read as the space it matches as (normalisation
 * reads any line break as a space). Read as stored, such a term came back from `modctl policy get`
 * refused by `policy set`, and the dashboard's form split it in two, so saving the page unchanged
 * made "two\nlines" two terms and flagged "I have two cats".
 */
function termsOnOneLine(rules: PolicyRules): PolicyRules {
  const oneLine = (term: string) => term.replace(LINE_BREAKS_IN_TERM, " ");
  const spans = (term: string) => TERM_LINE_BREAK.test(term);
  if (!rules.blockList.some((b) => spans(b.term)) && !rules.allowList.some(spans)) return rules;
  return { ...rules, blockList: rules.blockList.map((b) => ({ ...b, term: oneLine(b.term) })), allowList: rules.allowList.map(oneLine) };
}
