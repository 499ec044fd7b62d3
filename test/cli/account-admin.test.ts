import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "../../src/dashboard/password.js";
import { callModerate } from "../support/protocol-clients.js";
import { startTestServer, type StoreKind, type TestServer } from "../support/test-server.js";
import { json, modctl } from "./run-modctl.js";

// Operator tools against the store of two RUNNING replicas: what modctl changes must reach
// every replica on its next request.

const STORES: StoreKind[] = ["sqlite", "postgres"];
const body = { input: [{ type: "text", text: "hello from the operator test" }] };

describe("modctl account administration next to two replicas", () => {
  const replicas = new Map<StoreKind, [TestServer, TestServer]>();
  beforeAll(async () => {
    await Promise.all(STORES.map(async (store) => {
      const first = await startTestServer({ store });
      // The second replica shares the first one's store: its DATA_DIR, or its PostgreSQL schema.
      const second = await startTestServer({
        env: store === "sqlite" ? { DATA_DIR: first.dataDir } : { DATABASE_URL: first.env.DATABASE_URL!, MODCTL_PG_SCHEMA: first.env.MODCTL_PG_SCHEMA! },
        ...(store === "postgres" ? { overrides: { pgSchema: first.env.MODCTL_PG_SCHEMA! } } : {}),
      });
      replicas.set(store, [first, second]);
    }));
  });
  afterAll(async () => {
    for (const [first, second] of replicas.values()) {
      await second.close();
      await first.close();
    }
  });

  it.concurrent.for(STORES)("on %s: list and show find accounts by id and email; disable refuses the keys on both replicas, enable restores them", { timeout: 180_000 }, async (store, { expect }) => {
    const [first, second] = replicas.get(store)!;
    const { accountId, key, keyId } = await first.createAccount("pro");
    const email = (await first.ctx.accounts.getAccount(accountId))!.email;

    const listed = json(await modctl(["account", "list", "--limit", "1000"], first.env));
    expect(listed).toContainEqual(expect.objectContaining({ id: accountId, email, plan: "pro", disabledAt: null }));
    const byEmail = json(await modctl(["account", "show", "--email", email.toUpperCase()], first.env));
    expect(byEmail).toMatchObject({ id: accountId, email, keys: [expect.objectContaining({ id: keyId, revokedAt: null })] });
    expect(JSON.stringify(byEmail)).not.toContain(key.slice(13));
    expect(json(await modctl(["account", "show", accountId], first.env))).toEqual(byEmail);

    for (const replica of [first, second]) expect((await callModerate("json", replica, body, key)).ok).toBe(true);
    const disabled = json(await modctl(["account", "disable", "--email", email], first.env));
    expect(disabled).toMatchObject({ id: accountId, disabledAt: expect.any(Number) });
    for (const replica of [first, second]) {
      for (const protocol of ["json", "grpc"] as const) {
        expect(await callModerate(protocol, replica, body, key)).toMatchObject({ ok: false, code: "invalid_api_key" });
      }
    }
    expect(json(await modctl(["account", "enable", accountId], first.env))).toMatchObject({ id: accountId, disabledAt: null });
    for (const replica of [first, second]) expect((await callModerate("grpc", replica, body, key)).ok).toBe(true);
  }); // each modctl run is a Node start; the shared machine makes that seconds

  it.concurrent.for(STORES)("on %s: set-password takes the password on stdin and ends the account's sessions", { timeout: 120_000 }, async (store, { expect }) => {
    const [first] = replicas.get(store)!;
    const { accountId } = await first.createAccount();
    const email = (await first.ctx.accounts.getAccount(accountId))!.email;
    const session = await first.ctx.dashboard.sessions.create(accountId);

    const weak = await modctl(["account", "set-password", "--email", email], first.env, "short\n");
    expect(weak.code).toBe(2);
    expect(weak.stderr).toMatch(/at least 10 characters/);
    // The account's own email is as guessable here as on the dashboard.
    const own = await modctl(["account", "set-password", accountId], first.env, `${email}\n`);
    expect(own.code).toBe(2);
    expect(own.stderr).toMatch(/your email/);
    // Two lines on stdin are not one password a browser could type (it drops the line break).
    const twoLines = await modctl(["account", "set-password", accountId], first.env, "violet tiger\nmarble 42\n");
    expect(twoLines.code).toBe(2);
    expect(twoLines.stderr).toMatch(/cannot hold line breaks/);

    expect(json(await modctl(["account", "set-password", accountId], first.env, "a new long passphrase\n"))).toEqual({ id: accountId, passwordSet: true, sessionsEnded: true });
    const stored = (await first.ctx.accounts.findAccountByEmail(email))!.passwordHash!;
    expect(await verifyPassword("a new long passphrase", stored)).toBe(true);
    expect(await first.ctx.dashboard.sessions.find(session.token)).toBeUndefined();
  });

  it("answers not_found (exit 1) for an unknown email or id, and exit 2 for a bad command line", async () => {
    const [first] = replicas.get("sqlite")!;
    for (const args of [["account", "show", "--email", "nobody@example.test"], ["account", "disable", "acct_missing"]]) {
      const run = await modctl(args, first.env);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stderr)).toEqual({ error: { code: "not_found", message: expect.any(String) } });
    }
    for (const args of [["account", "show"], ["account", "show", "acct_x", "--email", "a@b.co"], ["account", "list", "--limit", "0"], ["invite", "create", "--count", "many"]]) {
      const run = await modctl(args, first.env);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stdout).toBe("");
    }
  }, 180_000);

  it("invite create prints codes once; the store and invite list keep only a prefix", async () => {
    const [first] = replicas.get("sqlite")!;
    const created = json(await modctl(["invite", "create", "--count", "2", "--days", "3"], first.env));
    expect(created).toHaveLength(2);
    for (const invite of created) {
      expect(invite.code).toMatch(/^inv_[A-Za-z0-9_-]{24}$/);
      expect(invite.expiresAt - invite.createdAt).toBe(3 * 86_400_000);
    }
    const listed = json(await modctl(["invite", "list"], first.env));
    expect(listed).toEqual(expect.arrayContaining(created.map((i: any) => ({ prefix: i.prefix, createdAt: i.createdAt, expiresAt: i.expiresAt, usedAt: null, usedBy: null }))));
    expect(JSON.stringify(listed)).not.toContain(created[0].code);
    // One code, one sign-up.
    const invites = first.ctx.dashboard.invites;
    expect(await invites.claim(created[0].code)).toBe(true);
    expect(await invites.claim(created[0].code)).toBe(false);
    expect(await invites.claim("inv_" + "x".repeat(24))).toBe(false);
  }, 120_000);

  it("keeps the SQLite store private: data dir 0700, database and WAL files 0600", async () => {
    const [first] = replicas.get("sqlite")!;
    const dataDir = path.join(first.dataDir, "fresh");
    json(await modctl(["account", "create", "--email", "modes@example.test", "--plan", "free"], { DATA_DIR: dataDir }));
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    const files = fs.readdirSync(first.dataDir).filter((name) => name.startsWith("moderation.sqlite"));
    expect(files).toEqual(expect.arrayContaining(["moderation.sqlite", "moderation.sqlite-wal"]));
    for (const name of [...files.map((f) => path.join(first.dataDir, f)), path.join(dataDir, "moderation.sqlite")]) {
      expect(fs.statSync(name).mode & 0o777, name).toBe(0o600);
    }
  }, 120_000);
});
