import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountStore, type AccountStore } from "../../src/accounts/account-store.js";
import { normalizeEmail } from "../../src/base/email-address.js";
import { ApiError } from "../../src/errors/api-error.js";
import type { Database } from "../../src/storage/database.js";
import { createStoreLocation, fakeClock, STORE_KINDS, type StoreLocation } from "./store-fixtures.js";

const KEY_FORMAT = /^mod_([A-Za-z0-9]{8})_([A-Za-z0-9_-]{43})$/;

async function expectRefusal(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  const error = await promise.then(
    () => { throw new Error(`expected ${code}, but the call succeeded`); },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe(code);
  expect((error as ApiError).message).toMatch(message);
}

let emailCounter = 0;
const email = (label = "user") => `${label}-${++emailCounter}-${Math.random().toString(36).slice(2, 7)}@example.test`;

// The same suite on both drivers: SQL is written once, so both must behave identically.
describe.each(STORE_KINDS)("account store on %s", (kind) => {
  let location: StoreLocation;
  let db: Database;
  let accounts: AccountStore;
  const clock = fakeClock();

  beforeAll(async () => {
    location = await createStoreLocation(kind);
    db = await location.open();
    accounts = createAccountStore(db, clock);
  });
  afterAll(async () => {
    await db?.close();
    await location?.destroy();
  });

  /** Every row of every table, as one string: for "the secret is stored nowhere" checks. */
  async function dumpAllTables(): Promise<string> {
    const tables = kind === "sqlite"
      ? await db.query<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`)
      : await db.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`);
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["accounts", "api_keys", "key_events"]));
    let dump = "";
    for (const { name } of tables) dump += JSON.stringify(await db.query(`SELECT * FROM ${name}`));
    return dump;
  }

  describe("accounts", () => {
    it("creates an account with its plan's limit, normalising the email", async () => {
      const address = email("Mixed");
      const account = await accounts.createAccount({ email: `  ${address.toUpperCase()} `, plan: "basic" });
      expect(account).toEqual({
        id: expect.stringMatching(/^acct_[A-Za-z0-9_-]{16}$/),
        email: address.toLowerCase(),
        plan: "basic",
        customRpm: null,
        requestsPerMinute: 60,
        createdAt: clock(),
        disabledAt: null,
      });
      expect(typeof account.createdAt).toBe("number");
      expect(await accounts.getAccount(account.id)).toEqual(account);
      expect(await accounts.findAccountByEmail(address)).toMatchObject({ id: account.id, passwordHash: null });
    });

    it.each([["free", 10], ["basic", 60], ["pro", 300]] as const)("gives the %s plan %i requests per minute", async (plan, rpm) => {
      expect(await accounts.createAccount({ email: email(), plan })).toMatchObject({ plan, customRpm: null, requestsPerMinute: rpm });
    });

    it("refuses a duplicate email, whatever its case, with email_taken", async () => {
      const address = email("dup");
      await accounts.createAccount({ email: address, plan: "free" });
      await expectRefusal(accounts.createAccount({ email: address, plan: "pro" }), "email_taken", /already exists/);
      await expectRefusal(accounts.createAccount({ email: address.toUpperCase(), plan: "free" }), "email_taken", /already exists/);
    });

    it("stores an internationalised domain as a browser's email field sends it, and refuses its other spellings as taken", async () => {
      const local = `user-${Math.random().toString(36).slice(2, 8)}`;
      const decomposed = `${local}@exa\u0308mple.com`; // a + combining diaeresis
      const account = await accounts.createAccount({ email: decomposed, plan: "free" });
      expect(account.email).toBe(`${local}@xn--exmple-cua.com`);
      await expectRefusal(accounts.createAccount({ email: decomposed.normalize("NFC"), plan: "free" }), "email_taken", /already exists/);
      await expectRefusal(accounts.createAccount({ email: `${decomposed}.`, plan: "free" }), "email_taken", /already exists/);
      await expectRefusal(accounts.createAccount({ email: `${local}@xn--exmple-cua.com`, plan: "free" }), "email_taken", /already exists/);
      expect(await accounts.findAccountByEmail(decomposed)).toMatchObject({ id: account.id });
      expect(await accounts.findAccountByEmail(`${decomposed.normalize("NFC").toUpperCase()}..`)).toMatchObject({ id: account.id });
      expect(await accounts.findAccountByEmail(`${local}@XN--EXMPLE-CUA.COM`)).toMatchObject({ id: account.id });
    });

    it("normalises an address the same however it was typed (lower-casing can decompose)", () => {
      expect(normalizeEmail("J\u030Cosef@Example.com.")).toBe(normalizeEmail("\u01F0osef@example.com"));
      expect(normalizeEmail(normalizeEmail(" J\u030Cosef@Example.com.. "))).toBe(normalizeEmail("J\u030Cosef@Example.com"));
    });

    it("lets exactly one of two racing sign-ups for one email win", async () => {
      const address = email("race");
      const results = await Promise.allSettled([
        accounts.createAccount({ email: address, plan: "free" }),
        accounts.createAccount({ email: address, plan: "free" }),
        accounts.createAccount({ email: address, plan: "free" }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results) {
        if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "email_taken" });
      }
    });

    it.each(["", "no-at-sign", "two@@example.test", "spaces in@example.test", "x@nodot", "u\u202e@example.test", "a\u0000b@example.test", "zero\u200bwidth@example.test", "half\ud800@example.test", `${"é".repeat(200)}@example.test`,
      // A browser's email field refuses to send these, so the account could never log in.
      "j\u00f6rg@example.test", "a@x_y.test", "a@-x.test"])("refuses the email %j", async (bad) => {
      await expectRefusal(accounts.createAccount({ email: bad, plan: "free" }), "invalid_request", /valid email/);
    });

    it("returns undefined for unknown accounts", async () => {
      expect(await accounts.getAccount("acct_nope")).toBeUndefined();
      expect(await accounts.findAccountByEmail("nobody@example.test")).toBeUndefined();
    });
  });

  describe("plans", () => {
    it("refuses an unknown plan", async () => {
      await expectRefusal(accounts.createAccount({ email: email(), plan: "gold" }), "invalid_request", /Unknown plan "gold"; use free, basic, pro or enterprise/);
    });

    it("requires a positive whole custom limit for enterprise, and only for enterprise", async () => {
      await expectRefusal(accounts.createAccount({ email: email(), plan: "enterprise" }), "invalid_request", /enterprise plan needs a custom limit/);
      // Past the 32-bit column: 2^31 and 10^20 (stored on SQLite, it made every call of the account a 500).
      for (const rpm of [0, -5, 1.5, Number.NaN, 2 ** 31, 1e20]) {
        await expectRefusal(accounts.createAccount({ email: email(), plan: "enterprise", rpm }), "invalid_request", /enterprise plan needs a custom limit/);
      }
      await expectRefusal(accounts.createAccount({ email: email(), plan: "pro", rpm: 1000 }), "invalid_request", /custom limit applies to the enterprise plan only, not "pro"/);
      expect(await accounts.createAccount({ email: email(), plan: "enterprise", rpm: 5000 }))
        .toMatchObject({ plan: "enterprise", customRpm: 5000, requestsPerMinute: 5000 });
      expect(await accounts.createAccount({ email: email(), plan: "enterprise", rpm: 2 ** 31 - 1 })).toMatchObject({ customRpm: 2 ** 31 - 1 });
    });

    it("changes plans, dropping the custom limit when leaving enterprise", async () => {
      const account = await accounts.createAccount({ email: email(), plan: "free" });
      expect(await accounts.setPlan(account.id, "enterprise", 12_000)).toMatchObject({ plan: "enterprise", customRpm: 12_000, requestsPerMinute: 12_000 });
      expect(await accounts.setPlan(account.id, "pro")).toMatchObject({ plan: "pro", customRpm: null, requestsPerMinute: 300 });
      expect(await accounts.getAccount(account.id)).toMatchObject({ plan: "pro", customRpm: null });
    });

    it("refuses bad plan changes and unknown accounts", async () => {
      const account = await accounts.createAccount({ email: email(), plan: "free" });
      await expectRefusal(accounts.setPlan(account.id, "enterprise"), "invalid_request", /custom limit/);
      await expectRefusal(accounts.setPlan(account.id, "basic", 99), "invalid_request", /enterprise plan only/);
      await expectRefusal(accounts.setPlan("acct_missing", "pro"), "not_found", /No account with id "acct_missing"/);
      expect(await accounts.getAccount(account.id)).toMatchObject({ plan: "free" });
    });
  });

  describe("API keys", () => {
    it("shows the secret once, at creation, and stores only its hash", async () => {
      const account = await accounts.createAccount({ email: email(), plan: "free" });
      const created = await accounts.createKey(account.id, "  ci  ");
      const match = KEY_FORMAT.exec(created.key);
      expect(match).not.toBeNull();
      expect(created).toMatchObject({
        id: expect.stringMatching(/^key_/),
        accountId: account.id,
        name: "ci",
        prefix: `mod_${match![1]}`,
        createdAt: clock(),
        lastUsedAt: null,
        revokedAt: null,
      });

      // Nowhere in the database: neither the whole key nor its secret part.
      const dump = await dumpAllTables();
      expect(dump).not.toContain(created.key);
      expect(dump).not.toContain(match![2]);
      const [row] = await db.query<{ secret_hash: string; prefix: string }>(`SELECT secret_hash, prefix FROM api_keys WHERE id = $1`, [created.id]);
      expect(row).toEqual({ secret_hash: createHash("sha256").update(created.key).digest("hex"), prefix: created.prefix });

      // Never again: reads return metadata only.
      const read = await accounts.getKey(created.id);
      const listed = await accounts.listKeys(account.id);
      for (const info of [read, ...listed]) {
        expect(info).not.toHaveProperty("key");
        expect(JSON.stringify(info)).not.toContain(match![2]);
        expect(JSON.stringify(info)).not.toContain(row!.secret_hash);
      }
    });

    it("generates distinct keys and names an unnamed key \"default\"", async () => {
      const account = await accounts.createAccount({ email: email(), plan: "free" });
      const a = await accounts.createKey(account.id);
      const b = await accounts.createKey(account.id, "   ");
      expect(a.key).not.toBe(b.key);
      expect(a.id).not.toBe(b.id);
      expect([a.name, b.name]).toEqual(["default", "default"]);
      // Control characters (a terminal colour code, a NUL) are dropped from a name.
      expect((await accounts.createKey(account.id, "a\u001b[31mred\u0000 key\u202e")).name).toBe("a[31mred key");
    });

    it("refuses a key for an unknown account and leaves nothing behind", async () => {
      await expectRefusal(accounts.createKey("acct_ghost"), "not_found", /No account with id "acct_ghost"/);
      expect(await db.query(`SELECT id FROM api_keys WHERE account_id = $1`, ["acct_ghost"])).toEqual([]);
      expect(await db.query(`SELECT id FROM key_events WHERE account_id = $1`, ["acct_ghost"])).toEqual([]);
    });

    it("lists an account's keys, newest first, and no one else's", async () => {
      const a = await accounts.createAccount({ email: email("a"), plan: "free" });
      const b = await accounts.createAccount({ email: email("b"), plan: "free" });
      const first = await accounts.createKey(a.id, "first");
      clock.advance(1_000);
      const second = await accounts.createKey(a.id, "second");
      await accounts.createKey(b.id, "other");
      const listed = await accounts.listKeys(a.id);
      expect(listed.map((k) => k.id)).toEqual([second.id, first.id]);
      expect(listed.every((k) => k.accountId === a.id)).toBe(true);
      expect(await accounts.listKeys("acct_nobody")).toEqual([]);
    });

    it("authenticates a key to its account, reading the plan fresh each time", async () => {
      const account = await accounts.createAccount({ email: email(), plan: "free" });
      const { key, id } = await accounts.createKey(account.id);
      expect(await accounts.authenticate(key)).toEqual({ accountId: account.id, keyId: id, plan: "free", requestsPerMinute: 10 });
      await accounts.setPlan(account.id, "enterprise", 2_500);
      expect(await accounts.authenticate(key)).toEqual({ accountId: account.id, keyId: id, plan: "enterprise", requestsPerMinute: 2_500 });
    });

    it("does not authenticate unknown, malformed or altered keys", async () => {
      const account = await accounts.createAccount({ email: email(), plan: "free" });
      const { key } = await accounts.createKey(account.id);
      const flipped = key.slice(0, -1) + (key.endsWith("A") ? "B" : "A");
      for (const candidate of [flipped, "", "mod_", "not a key", `${key} `, key.toUpperCase(), `mod_AAAAAAAA_${"A".repeat(43)}`]) {
        expect(await accounts.authenticate(candidate), candidate).toBeUndefined();
      }
    });

    it("revokes a key at once and records who did what", async () => {
      const account = await accounts.createAccount({ email: email(), plan: "free" });
      const { key, id } = await accounts.createKey(account.id);
      clock.advance(5_000);
      const revoked = await accounts.revokeKey(id, { accountId: account.id });
      expect(revoked).toMatchObject({ id, accountId: account.id, revokedAt: clock() });
      expect(await accounts.authenticate(key)).toBeUndefined();

      // Revoking again changes nothing (still revoked, same time, no second event).
      clock.advance(5_000);
      expect(await accounts.revokeKey(id)).toMatchObject({ revokedAt: revoked.revokedAt });
      const events = await db.query<{ event: string; account_id: string }>(`SELECT event, account_id FROM key_events WHERE key_id = $1 ORDER BY at`, [id]);
      expect(events).toEqual([{ event: "created", account_id: account.id }, { event: "revoked", account_id: account.id }]);
    });

    it("records one revocation when several revoke a key at once (PostgreSQL logged one per caller)", async () => {
      const account = await accounts.createAccount({ email: email(), plan: "free" });
      const { id } = await accounts.createKey(account.id);
      const answers = await Promise.all(Array.from({ length: 8 }, () => accounts.revokeKey(id)));
      expect(new Set(answers.map((a) => a.revokedAt)).size).toBe(1);
      const events = await db.query<{ event: string }>(`SELECT event FROM key_events WHERE key_id = $1 AND event = 'revoked'`, [id]);
      expect(events).toHaveLength(1);
    });

    it("rotates a live key once when several rotate it at once: one new key, the old one revoked", async () => {
      const account = await accounts.createAccount({ email: email(), plan: "free" });
      const old = await accounts.createKey(account.id, "ci");
      const answers = await Promise.allSettled(Array.from({ length: 6 }, () => accounts.rotateKey(old.id, account.id)));
      const rotated = answers.flatMap((a) => (a.status === "fulfilled" ? [a.value] : []));
      expect(rotated).toHaveLength(1);
      for (const a of answers) if (a.status === "rejected") expect(a.reason).toMatchObject({ code: "not_found" });
      const live = (await accounts.listKeys(account.id)).filter((k) => k.revokedAt === null);
      expect(live.map((k) => k.id)).toEqual([rotated[0]!.key.id]);
      expect(rotated[0]).toMatchObject({ key: { name: "ci" }, rotatedFrom: { id: old.id } });
      expect(await accounts.authenticate(old.key)).toBeUndefined();
      expect(await accounts.authenticate(rotated[0]!.key.key)).toMatchObject({ accountId: account.id });
      // Another account's key, a revoked one and a missing one are all "not found".
      const other = await accounts.createAccount({ email: email(), plan: "free" });
      await expectRefusal(accounts.rotateKey(rotated[0]!.key.id, other.id), "not_found", /No active API key/);
      await expectRefusal(accounts.rotateKey(old.id, account.id), "not_found", /No active API key/);
    });

    it("holds an account to 100 live keys, also when they are created at once", async () => {
      const account = await accounts.createAccount({ email: email(), plan: "free" });
      for (let i = 0; i < 95; i++) await accounts.createKey(account.id, `k${i}`);
      const answers = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => accounts.createKey(account.id, `burst${i}`)));
      expect(answers.filter((a) => a.status === "fulfilled")).toHaveLength(5);
      for (const a of answers) if (a.status === "rejected") expect(a.reason).toMatchObject({ code: "too_many_keys" });
      await expectRefusal(accounts.createKey(account.id), "too_many_keys", /at most 100 active API keys/);
      // A rotation keeps the count; a revocation makes room.
      const [first] = await accounts.listKeys(account.id);
      await accounts.rotateKey(first!.id, account.id);
      await expectRefusal(accounts.createKey(account.id), "too_many_keys", /at most 100/);
      await accounts.revokeKey((await accounts.listKeys(account.id)).find((k) => k.revokedAt === null)!.id);
      expect(await accounts.createKey(account.id, "room")).toMatchObject({ name: "room" });
    });

    it("cuts a long key name at 100 code points, never inside an emoji", async () => {
      const account = await accounts.createAccount({ email: email(), plan: "free" });
      const name = `${"n".repeat(99)}😀😀`;
      const key = await accounts.createKey(account.id, name);
      expect(key.name).toBe(`${"n".repeat(99)}😀`);
      // As stored, not only as returned: a half pair came back from SQLite as three U+FFFD.
      expect((await db.query<{ name: string }>(`SELECT name FROM api_keys WHERE id = $1`, [key.id]))[0]!.name).toBe(`${"n".repeat(99)}😀`);
      expect((await accounts.createKey(account.id, `a\ud800b`)).name).toBe("ab");
      // An emoji sequence of several code points is one character: kept whole or left out.
      const family = "👨‍👩‍👧";
      expect((await accounts.createKey(account.id, `${"n".repeat(99)}${family}${family}`)).name).toBe(`${"n".repeat(99)}${family}`);
      // One grapheme may hold any number of code points: at most 400 in all.
      expect(Array.from((await accounts.createKey(account.id, `a${"\u0301".repeat(50)}`.repeat(100))).name)).toHaveLength(357);
    });

    it("sees a revocation or plan change made through another connection (as modctl does) on the next call", async () => {
      const account = await accounts.createAccount({ email: email(), plan: "free" });
      const first = await accounts.createKey(account.id);
      const second = await accounts.createKey(account.id);
      // Authenticate twice first, so a cache (if the driver has one) holds both answers.
      for (let i = 0; i < 2; i++) {
        expect(await accounts.authenticate(first.key)).toMatchObject({ plan: "free" });
        expect(await accounts.authenticate(second.key)).toMatchObject({ plan: "free" });
      }
      // The synchronous path auth takes first answers from that cache, when there is one.
      const cached = accounts.cachedCaller(first.key);
      if (cached) expect(cached.caller).toMatchObject({ plan: "free" });
      const other = await location.open();
      try {
        const elsewhere = createAccountStore(other, clock);
        await elsewhere.revokeKey(first.id);
        expect(accounts.cachedCaller(first.key)?.caller).toBeUndefined();
        expect(await accounts.authenticate(first.key)).toBeUndefined();
        await elsewhere.setPlan(account.id, "pro");
        expect(await accounts.authenticate(second.key)).toMatchObject({ plan: "pro", requestsPerMinute: 300 });
        // And a key created elsewhere works at once, although its hash was just looked up in vain.
        const unknown = `mod_AAAAAAAA_${"A".repeat(43)}`;
        expect(await accounts.authenticate(unknown)).toBeUndefined();
        const created = await elsewhere.createKey(account.id);
        expect(await accounts.authenticate(created.key)).toMatchObject({ keyId: created.id });
      } finally {
        await other.close();
      }
    });

    it("scopes revocation by account: A cannot revoke B's key, and the refusal looks like a missing key", async () => {
      const a = await accounts.createAccount({ email: email("a"), plan: "free" });
      const b = await accounts.createAccount({ email: email("b"), plan: "free" });
      const bKey = await accounts.createKey(b.id);
      await expectRefusal(accounts.revokeKey(bKey.id, { accountId: a.id }), "not_found", new RegExp(`No API key with id "${bKey.id}"`));
      await expectRefusal(accounts.revokeKey("key_doesnotexist", { accountId: a.id }), "not_found", /No API key with id "key_doesnotexist"/);
      await expectRefusal(accounts.revokeKey("key_doesnotexist"), "not_found", /No API key/);
      // B's key is untouched and still works.
      expect(await accounts.getKey(bKey.id)).toMatchObject({ revokedAt: null });
      expect(await accounts.authenticate(bKey.key)).toMatchObject({ accountId: b.id });
    });

    it("answers a key id or email holding U+0000 as one that names nothing (PostgreSQL failed the query: a 500)", async () => {
      const account = await accounts.createAccount({ email: email("nul"), plan: "free" });
      const key = await accounts.createKey(account.id);
      const withNul = `${key.id}\u0000`;
      expect(await accounts.getKey(withNul)).toBeUndefined();
      expect(await accounts.getAccount(`${account.id}\u0000`)).toBeUndefined();
      expect(await accounts.findAccountByEmail(`${account.email}\u0000`)).toBeUndefined();
      await expectRefusal(accounts.revokeKey(withNul, { accountId: account.id }), "not_found", /No API key with id "key_[^"]+\\u0000"/);
      await expectRefusal(accounts.rotateKey(withNul, account.id), "not_found", /No active API key/);
      // A long id is quoted cut short, not echoed in full.
      await expectRefusal(accounts.revokeKey("k".repeat(100_000)), "not_found", /^No API key with id "k{64}…"\.$/);
      expect(await accounts.getKey(key.id)).toMatchObject({ revokedAt: null });
    });

    it("records last use at most once a minute", async () => {
      const account = await accounts.createAccount({ email: email(), plan: "free" });
      const { id } = await accounts.createKey(account.id);
      const t0 = clock();
      await accounts.markUsed([id], t0);
      expect((await accounts.getKey(id))?.lastUsedAt).toBe(t0);
      await accounts.markUsed([id], t0 + 30_000);
      expect((await accounts.getKey(id))?.lastUsedAt).toBe(t0);
      await accounts.markUsed([id], t0 + 61_000);
      expect((await accounts.getKey(id))?.lastUsedAt).toBe(t0 + 61_000);
    });
  });
});
