import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPolicyStore } from "../../src/policies/policy-store.js";
import { createAccountStore } from "../../src/accounts/account-store.js";
import { findPolicyTerms } from "../../src/policies/apply-policy.js";
import type { Database } from "../../src/storage/database.js";
import { ApiError } from "../../src/errors/api-error.js";
import type { PolicyRules } from "../../src/policies/policy.js";
import { createStoreLocation, STORE_KINDS, type StoreLocation } from "../storage/store-fixtures.js";

describe.each(STORE_KINDS)("policy store on %s", (kind) => {
  let location: StoreLocation;
  let a: Database;
  let b: Database;
  beforeAll(async () => {
    location = await createStoreLocation(kind);
    a = await location.open();
    b = await location.open();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await location?.destroy();
  });

  /** A real account with live keys: a key's override is written only for a live key of its account. */
  let accountsMade = 0;
  const accountWithKeys = async (keys: 1 | 2): Promise<{ accountId: string; keyIds: [string, string] }> => {
    const accounts = createAccountStore(a);
    const account = await accounts.createAccount({ email: `policy-${kind}-${++accountsMade}@example.test`, plan: "free" });
    const keyIds: string[] = [];
    for (let i = 0; i < keys; i++) keyIds.push((await accounts.createKey(account.id, `key ${i}`)).id);
    return { accountId: account.id, keyIds: keyIds as [string, string] };
  };

  it("keeps versions, records who changed them, and prefers a key's override", async () => {
    const store = createPolicyStore(a, () => 1_000);
    const { accountId: acct1, keyIds: [key1, key2] } = await accountWithKeys(2);
    expect(await store.forCaller(acct1, key1)).toBeUndefined();
    const v1 = await store.update({ accountId: acct1 }, { thresholds: { hate: 0.2 } }, "user:alice@example.test");
    const v2 = await store.update({ accountId: acct1 }, { thresholds: { hate: 0.3 }, allowList: ["gg"] }, "modctl");
    expect([v1.version, v2.version, v2.id]).toEqual([1, 2, v1.id]);
    expect(v1.id).toMatch(/^pol_/);
    expect((await store.forCaller(acct1, key1))?.policy).toEqual(v2);
    const override = await store.update({ accountId: acct1, keyId: key2 }, { thresholds: { hate: "off" } }, "api:key_2");
    expect((await store.forCaller(acct1, key2))?.policy).toEqual(override);
    expect((await store.forCaller(acct1, key1))?.policy.version).toBe(2);
    expect(await store.current({ accountId: acct1, keyId: key1 })).toBeUndefined();
    expect(await store.current({ accountId: acct1 })).toEqual(v2);
    expect(await store.forCaller("acct_other", key1)).toBeUndefined();
    const history = await store.history(acct1);
    expect(history.map((c) => [c.scope, c.version, c.previousVersion, c.changedBy])).toEqual(
      expect.arrayContaining([["account", 1, 0, "user:alice@example.test"], ["account", 2, 1, "modctl"], ["key", 1, 0, "api:key_2"]]),
    );
    expect(history).toHaveLength(3);
  });

  it("writes a key's override only for a live key of the account, checked in the writing transaction", async () => {
    const store = createPolicyStore(a);
    const { accountId, keyIds: [key] } = await accountWithKeys(1);
    const other = await accountWithKeys(1);
    await expect(store.update({ accountId, keyId: other.keyIds[0] }, {}, "modctl")).rejects.toMatchObject({ code: "not_found" });
    await expect(store.update({ accountId, keyId: "key_missing" }, {}, "modctl")).rejects.toMatchObject({ code: "not_found" });
    await createAccountStore(a).revokeKey(key);
    await expect(store.update({ accountId, keyId: key }, {}, "modctl")).rejects.toMatchObject({ code: "not_found" });
    expect(await store.history(accountId)).toEqual([]);
  });

  it("a change of a key's override racing the key's rotation lands on the successor, or is refused", async () => {
    // The race audit's case: the override's rules were written to the rotated key after the
    // rotation had carried the old ones over, and the call was told it had worked.
    const stores = kind === "postgres" ? [createPolicyStore(a), createPolicyStore(b)] : [createPolicyStore(a), createPolicyStore(a)];
    const accounts = createAccountStore(kind === "postgres" ? b : a);
    for (let round = 0; round < 5; round++) {
      const { accountId, keyIds: [key] } = await accountWithKeys(1);
      await stores[0]!.update({ accountId, keyId: key }, { thresholds: { hate: 0.9 } }, "setup");
      const [change, rotation] = await Promise.allSettled([
        stores[round % 2]!.update({ accountId, keyId: key }, { thresholds: { hate: 0.1 } }, "racer"),
        accounts.rotateKey(key, accountId, { carryOver: (tx, from, to) => stores[0]!.carryKeyOverride(tx, accountId, from, to, "rotation") }),
      ]);
      if (rotation.status !== "fulfilled") throw rotation.reason;
      const successor = rotation.value.key.id;
      const inForce = (await stores[0]!.forCaller(accountId, successor))?.policy.thresholds.hate;
      if (change.status === "fulfilled") expect(inForce, `round ${round}`).toBe(0.1);
      else expect([change.reason.code ?? String(change.reason), inForce]).toEqual(["not_found", 0.9]);
    }
  });

  // An override with empty rules is still an override (its key's calls ignored the account's
  // policy), and there was no way back: found by an audit.
  it("removes a key's override (its calls follow the account's policy again) and the account's, each recorded as a version", async () => {
    const store = createPolicyStore(a, () => 2_000);
    const { accountId: acctRm, keyIds: [keyRm] } = await accountWithKeys(1);
    const account = await store.update({ accountId: acctRm }, { thresholds: { hate: 0.2 } }, "modctl");
    const override = await store.update({ accountId: acctRm, keyId: keyRm }, {}, "api:key_rm");
    expect((await store.forCaller(acctRm, keyRm))?.policy).toEqual(override);
    expect(await store.remove({ accountId: acctRm, keyId: keyRm }, "api:key_rm")).toEqual({ id: override.id, version: 2 });
    // Seen by the other connection too (another process, another replica).
    const other = createPolicyStore(b);
    expect((await other.forCaller(acctRm, keyRm))?.policy).toEqual(account);
    expect(await other.current({ accountId: acctRm, keyId: keyRm })).toBeUndefined();
    expect(await store.remove({ accountId: acctRm, keyId: keyRm }, "api:key_rm")).toBeUndefined();
    // Set again, the scope goes on from the removal's version.
    const again = await store.update({ accountId: acctRm, keyId: keyRm }, { thresholds: { hate: "off" } }, "modctl");
    expect([again.id, again.version]).toEqual([override.id, 3]);
    expect((await other.forCaller(acctRm, keyRm))?.policy).toEqual(again);
    await store.remove({ accountId: acctRm }, "modctl");
    expect(await other.forCaller(acctRm, "key_other")).toBeUndefined();
    expect((await other.forCaller(acctRm, keyRm))?.policy).toEqual(again);
    const history = await store.history(acctRm);
    expect(history.filter((c) => c.removed).map((c) => [c.scope, c.version])).toEqual(expect.arrayContaining([["key", 2], ["account", 2]]));
    expect(history).toHaveLength(5);
  });

  // Versions before 2026-12-14 stored terms with a line break; the dashboard's form (a term per line)
  // split such a term in two, so saving the page unchanged flagged "I have two cats".
  it("reads a stored term holding a line break as the one-line term it matches as", async () => {
    const store = createPolicyStore(a);
    const rules = { thresholds: {}, blockList: [{ term: "two\nlines", category: "hate" }, { term: "plain", category: "custom" }], allowList: ["good\r\n  game"] };
    await a.execute(
      `INSERT INTO policy_versions (policy_id, account_id, scope, version, rules, changed_at, changed_by) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      ["pol_older", "acct_lines", "", 1, JSON.stringify(rules), 1, "modctl"],
    );
    const stored = (await store.current({ accountId: "acct_lines" }))!;
    expect(stored.blockList).toEqual([{ term: "two lines", category: "hate" }, { term: "plain", category: "custom" }]);
    expect(stored.allowList).toEqual(["good game"]);
    // The same meaning as before, and what it reads now is accepted back unchanged.
    const compiled = (await store.forCaller("acct_lines", "key_any"))!;
    expect(findPolicyTerms("we saw two lines of text", compiled).length).toBe(1);
    expect(findPolicyTerms("two\nlines", compiled).length).toBe(1);
    expect(findPolicyTerms("I have two cats", compiled)).toEqual([]);
    const saved = await store.update({ accountId: "acct_lines" }, { thresholds: stored.thresholds, blockList: stored.blockList, allowList: stored.allowList }, "modctl");
    expect(saved.blockList).toEqual(stored.blockList);
  });

  it("refuses an invalid draft and stores nothing", async () => {
    const store = createPolicyStore(a);
    await expect(store.update({ accountId: "acct_2" }, { thresholds: { gore: 1 } }, "x")).rejects.toMatchObject({ code: "policy_unknown_category" });
    await expect(store.update({ accountId: "acct_2" }, { thresholds: { hate: 2 } }, "x")).rejects.toBeInstanceOf(ApiError);
    expect(await store.current({ accountId: "acct_2" })).toBeUndefined();
  });

  it("changes made at once all land, as consecutive versions of one policy", async () => {
    // Two PostgreSQL connections race for the same version (replicas); SQLite serves one process,
    // whose transactions are serialised (two writing SQLite processes wait on its busy timeout).
    const stores = kind === "postgres" ? [createPolicyStore(a), createPolicyStore(b)] : [createPolicyStore(a), createPolicyStore(a)];
    const made = await Promise.all(Array.from({ length: 6 }, (_, i) => stores[i % 2]!.update({ accountId: "acct_4" }, { thresholds: { hate: i / 10 } }, `writer ${i}`)));
    expect(made.map((p) => p.version).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(new Set(made.map((p) => p.id)).size).toBe(1);
  });

  it("the same rules saved at once unless already in force make one version (a form sent twice)", async () => {
    const stores = kind === "postgres" ? [createPolicyStore(a), createPolicyStore(b)] : [createPolicyStore(a), createPolicyStore(a)];
    const rules: PolicyRules = { thresholds: { hate: 0.25 }, blockList: [], allowList: ["gg"] };
    const same = (draft: PolicyRules, inForce: PolicyRules | undefined) =>
      JSON.stringify([draft.thresholds, draft.allowList]) === JSON.stringify([inForce?.thresholds, inForce?.allowList]);
    const made = await Promise.all(Array.from({ length: 6 }, (_, i) => stores[i % 2]!.saveUnlessSame({ accountId: "acct_same" }, rules, `writer ${i}`, same)));
    expect(made.filter((m) => m.saved)).toHaveLength(1);
    expect(made.map((m) => m.policy?.version)).toEqual([1, 1, 1, 1, 1, 1]);
    expect((await stores[0]!.history("acct_same")).length).toBe(1);
    // Different rules are stored as the next version.
    const next = await stores[0]!.saveUnlessSame({ accountId: "acct_same" }, { ...rules, allowList: [] }, "writer 7", same);
    expect([next.saved, next.policy?.version]).toEqual([true, 2]);
  });

  it("a change made through another connection (another replica) applies on the next read", async () => {
    const here = createPolicyStore(a);
    const there = createPolicyStore(b);
    await there.update({ accountId: "acct_3" }, { thresholds: { sexual: 0.1 } }, "x");
    // Prime the cache here, then change it there.
    expect((await here.forCaller("acct_3", "key_9"))?.policy.version).toBe(1);
    await there.update({ accountId: "acct_3" }, { thresholds: { sexual: 0.9 } }, "x");
    const seen = await here.forCaller("acct_3", "key_9");
    expect(seen?.policy.version).toBe(2);
    expect(seen?.policy.thresholds).toEqual({ sexual: 0.9 });
  });

  // Found by an audit: the compiled policies (at most 1,000) were evicted oldest first, so a
  // thousand new policies pushed out another account's policy in use.
  it("keeps a compiled policy in use while a thousand other policies are compiled", async () => {
    const store = createPolicyStore(a, () => 1_000);
    await store.update({ accountId: "acct_lru" }, { thresholds: { hate: 0.4 } }, "test");
    const inUse = await store.forCaller("acct_lru", "key_lru");
    for (let i = 0; i < 1_000; i++) {
      await store.update({ accountId: `acct_churn_${i}` }, { thresholds: { hate: (i % 100) / 100 } }, "test");
      await store.forCaller(`acct_churn_${i}`, "key_churn");
      if (i % 50 === 0) expect(await store.forCaller("acct_lru", "key_lru")).toBe(inUse);
    }
    expect(await store.forCaller("acct_lru", "key_lru")).toBe(inUse);
  }, 120_000);

  // Found by a soak test (session 51): every version stayed compiled until 1,000 newer ones pushed
  // it out, about 1.8 MB each for 10,000 terms, though no call reads an old version again.
  it("keeps only a policy's newest version compiled, and none once it is removed", async () => {
    const store = createPolicyStore(a, () => 1_000);
    for (let i = 1; i <= 20; i++) {
      await store.update({ accountId: "acct_versions" }, { blockList: [{ term: `word${i}`, category: "custom" }] }, "test");
      expect((await store.forCaller("acct_versions", "key_v"))?.policy.version).toBe(i);
      expect(store.compiledPolicies()).toBe(1);
    }
    await store.remove({ accountId: "acct_versions" }, "test");
    expect(await store.forCaller("acct_versions", "key_v")).toBeUndefined();
    expect(store.compiledPolicies()).toBe(0);
  });
});
