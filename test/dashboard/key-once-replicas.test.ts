import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountStore } from "../../src/accounts/account-store.js";
import { createKeyOnce, newFormToken, REMEMBER_MS } from "../../src/dashboard/key-once.js";
import type { Database } from "../../src/storage/database.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { createStoreLocation, fakeClock, STORE_KINDS, type StoreLocation } from "../storage/store-fixtures.js";
import { createFormClient } from "./form-client.js";

// The create-key form's token was remembered in one process's memory: posted to replica C, then
// resent to replica A, it left two live keys (the first a credential nobody saw). Two connections
// to one store, each with its own key-once, stand for two replicas.

let n = 0;
const email = (label: string) => `${label}-${++n}-${Math.random().toString(36).slice(2, 7)}@example.test`;

describe.each(STORE_KINDS)("one create-key form across replicas, on %s", (kind) => {
  let location: StoreLocation;
  const dbs: Database[] = [];
  const clock = fakeClock();

  beforeAll(async () => {
    location = await createStoreLocation(kind);
    dbs.push(await location.open(), await location.open());
  });
  afterAll(async () => {
    for (const db of dbs) await db.close();
    await location?.destroy();
  });

  /** A replica's create-key post, as account-pages.ts makes it. */
  const replica = (db: Database) => {
    const once = createKeyOnce({ db, clock });
    return (accountId: string, token: string, name = "prod") => once(
      accountId, token,
      (tx) => createAccountStore(tx, clock).createKey(accountId, name),
      (tx, keyId) => createAccountStore(tx, clock).revokeKey(keyId, { accountId }),
    );
  };
  const newAccount = async (label: string) => (await createAccountStore(dbs[0]!, clock).createAccount({ email: email(label), plan: "free" })).id;
  const liveKeys = async (accountId: string) =>
    (await createAccountStore(dbs[0]!, clock).listKeys(accountId)).filter((k) => k.revokedAt === null);

  it("a form posted to one replica and resent to another leaves one live key, the last one made", async () => {
    const [a, b] = [replica(dbs[0]!), replica(dbs[1]!)];
    const accountId = await newAccount("resent");
    const token = newFormToken();
    const first = await b(accountId, token);
    expect(first.replaced).toBeUndefined();
    const second = await a(accountId, token);
    const last = await a(accountId, token);
    expect((await liveKeys(accountId)).map((k) => k.id)).toEqual([last.key.id]);
    // Each resend names the key it revoked, so the page can say the secret shown before is dead.
    expect([second.replaced?.id, last.replaced?.id]).toEqual([first.key.id, second.key.id]);
    expect(last.replaced?.revokedAt).not.toBeNull();
  });

  it("posts of one form sent to both replicas at once leave one live key", async () => {
    const [a, b] = [replica(dbs[0]!), replica(dbs[1]!)];
    const accountId = await newAccount("at-once");
    const token = newFormToken();
    for (let round = 0; round < 5; round++) {
      const made = await Promise.all([a(accountId, token), b(accountId, token), a(accountId, token)]);
      const live = await liveKeys(accountId);
      expect(live.length, `round ${round}`).toBe(1);
      expect(made.map((k) => k.key.id)).toContain(live[0]!.id);
    }
  });

  it("different forms posted at once on both replicas each make their key", async () => {
    const [a, b] = [replica(dbs[0]!), replica(dbs[1]!)];
    const accountId = await newAccount("different");
    await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b)(accountId, newFormToken())));
    expect((await liveKeys(accountId)).length).toBe(8);
  });

  it("forgets a token after ten minutes: its rows are deleted, and a resend then makes a second key", async () => {
    const [a, b] = [replica(dbs[0]!), replica(dbs[1]!)];
    const accountId = await newAccount("expired");
    const token = newFormToken();
    await a(accountId, token);
    clock.advance(REMEMBER_MS + 1);
    await b(accountId, newFormToken()); // any post cleans up
    const rows = await dbs[0]!.query<{ token: string }>(`SELECT token FROM dashboard_key_forms WHERE account_id = $1`, [accountId]);
    expect(rows.map((r) => r.token)).not.toContain(token);
    expect(await dbs[0]!.query(`SELECT token FROM dashboard_key_forms WHERE used_at <= $1`, [clock() - REMEMBER_MS])).toEqual([]);
    await b(accountId, token);
    expect((await liveKeys(accountId)).length).toBe(3);
  });

  it("a post without a valid token makes a key and records nothing", async () => {
    const accountId = await newAccount("no-token");
    await replica(dbs[0]!)(accountId, "not a token");
    await replica(dbs[1]!)(accountId, "not a token");
    expect((await liveKeys(accountId)).length).toBe(2);
    expect(await dbs[0]!.query(`SELECT token FROM dashboard_key_forms WHERE account_id = $1`, [accountId])).toEqual([]);
  });
});

describe("one create-key form across two servers on one PostgreSQL database", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ store: "postgres", env: { SIGNUPS_PER_IP: "1000" } });
    const schema = a.env.MODCTL_PG_SCHEMA!;
    b = await startTestServer({ store: "postgres", env: { SIGNUPS_PER_IP: "1000", MODCTL_PG_SCHEMA: schema }, overrides: { pgSchema: schema } });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("the form rendered on one, posted to the other and resent to the first leaves one live key, whose secret the last page shows", async () => {
    const onA = createFormClient(a.httpUrl);
    const address = email("servers");
    expect((await onA.signup(address)).status).toBe(303);
    // The same browser (its session cookie) behind a load balancer that picks the other server.
    const onB = createFormClient(b.httpUrl);
    for (const [name, value] of onA.jar) onB.jar.set(name, value);
    const page = await onA.get("/dashboard/keys");
    const form = { _csrf: onA.csrf, name: "prod", once: /name="once" value="([^"]+)"/.exec(page.html)![1]! };
    const accountId = (await a.ctx.accounts.findAccountByEmail(address))!.id;
    const before = (await a.ctx.accounts.listKeys(accountId)).length;

    expect((await onB.post("/dashboard/keys", form)).status).toBe(200);
    const [x, y] = await Promise.all([onA.post("/dashboard/keys", form), onB.post("/dashboard/keys", form)]);
    const last = await onA.post("/dashboard/keys", form);
    expect([x.status, y.status, last.status]).toEqual([200, 200, 200]);
    const live = (await b.ctx.accounts.listKeys(accountId)).filter((k) => k.revokedAt === null);
    expect(live.length).toBe(1);
    expect((await a.ctx.accounts.listKeys(accountId)).length).toBe(before + 4);
    const secret = /id="new-key-secret"[^>]*>\s*([^<\s]+)/.exec(last.html)![1]!;
    expect(secret.startsWith(live[0]!.prefix)).toBe(true);
    expect(await b.ctx.accounts.authenticate(secret)).toMatchObject({ keyId: live[0]!.id });
  });
});
