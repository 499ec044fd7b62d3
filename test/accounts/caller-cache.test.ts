import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountStore } from "../../src/accounts/account-store.js";
import { createCallerCache } from "../../src/accounts/caller-cache.js";
import type { Database } from "../../src/storage/database.js";
import { createStoreLocation, type StoreLocation } from "../storage/store-fixtures.js";

// A key look-up that was in flight while the store changed (a key revoked, an account disabled)
// read the row from before the change: caching it under the new change token would keep a
// revoked key working until some unrelated change. caller-cache.ts `set` takes the token read
// before the query and drops the entry when the token has moved since.

describe("the caller cache", () => {
  it("does not keep an answer read before the change token moved", () => {
    let storeToken = "1";
    const cache = createCallerCache<string>(() => storeToken);
    expect(cache.get("hash")).toEqual({ found: false });
    const tokenBefore = cache.token();
    // The store changes while the look-up runs, and another request sees the new token first.
    storeToken = "2";
    expect(cache.get("other")).toEqual({ found: false });
    cache.set("hash", "stale caller", tokenBefore);
    expect(cache.get("hash")).toEqual({ found: false });
    // An answer read under the current token is kept.
    cache.set("hash", "fresh caller", cache.token());
    expect(cache.get("hash")).toEqual({ found: true, caller: "fresh caller" });
  });
});

describe("a key revoked while its look-up is in flight (SQLite, whose store has a change token)", () => {
  let location: StoreLocation;
  let db: Database;
  /** While set, a key look-up's rows (read at once) are handed back only once `release` is called. */
  let hold: { read: () => void; release: Promise<void> } | undefined;

  beforeAll(async () => {
    location = await createStoreLocation("sqlite");
    db = await location.open();
    expect(db.changeToken).toBeDefined();
  });
  afterAll(async () => {
    await db?.close();
    await location?.destroy();
  });

  it("is refused on the next request, not served from a cache entry made live by the stale read", async () => {
    const slow: Database = {
      ...db,
      query: async <Row extends Record<string, unknown>>(sql: string, params?: Parameters<Database["query"]>[1]) => {
        const rows = await db.query<Row>(sql, params);
        if (hold && sql.includes("secret_hash")) {
          hold.read();
          await hold.release;
        }
        return rows;
      },
    };
    const accounts = createAccountStore(slow);
    const account = await accounts.createAccount({ email: "racer@example.test", plan: "pro" });
    const revoked = await accounts.createKey(account.id, "revoked mid look-up");
    const bystander = await accounts.createKey(account.id, "another caller");
    // The cache has read the store's token once.
    expect(await accounts.authenticate(bystander.key)).toBeDefined();

    let release!: () => void;
    let read!: () => void;
    const rowRead = new Promise<void>((resolve) => (read = resolve));
    hold = { read, release: new Promise<void>((resolve) => (release = resolve)) };
    const inFlight = accounts.authenticate(revoked.key);
    // The look-up has read its (still live) row; then the key is revoked.
    await rowRead;
    hold = undefined;
    await accounts.revokeKey(revoked.id);
    // Another request sees the new token before the look-up returns.
    accounts.cachedCaller(bystander.key);
    release();
    // The call already under way was authenticated before the revoke.
    expect(await inFlight).toMatchObject({ keyId: revoked.id });

    expect(accounts.cachedCaller(revoked.key)?.caller).toBeUndefined();
    expect(await accounts.authenticate(revoked.key)).toBeUndefined();
  });
});
