import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createAppContext } from "../../src/app/app-context.js";
import { readConfig } from "../../src/config/config.js";
import { createSessionStore } from "../../src/dashboard/session-store.js";
import { startServer } from "../../src/edge/server.js";
import { createSchema, dropSchema, POSTGRES_URL } from "../support/test-server.js";
import { json, modctl } from "./run-modctl.js";

const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "store-cmd-"));
  cleanup.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A fresh PostgreSQL schema, named the way an operator would: in the URL's search_path. */
async function postgresTarget(): Promise<string> {
  const schema = await createSchema();
  cleanup.push(() => dropSchema(schema));
  const url = new URL(POSTGRES_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return url.toString();
}

/** The real server on `env`'s store; closing it is a clean stop (journal written) that keeps the data. */
async function serve(env: Record<string, string>) {
  const ctx = await createAppContext(readConfig({
    PORT: "0", GRPC_PORT: "0", HOST: "127.0.0.1", IMAGE_MODEL_LOAD: "lazy", IMAGE_WORKERS: "1", SHUTDOWN_GRACE_MS: "5000", ...env,
  }));
  const server = await startServer(ctx);
  return {
    ctx,
    url: server.httpUrl,
    async close() {
      await server.close();
      await ctx.close();
    },
  };
}

async function moderate(url: string, key: string, text: string) {
  const response = await fetch(`${url}/v1/moderate`, {
    method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: JSON.stringify({ input: [{ type: "text", text }] }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { policy?: { version: number }; results: { categories: Record<string, { flagged: boolean }> }[] };
}

async function usageTotals(url: string, key: string): Promise<unknown> {
  const response = await fetch(`${url}/v1/usage?granularity=day`, { headers: { "x-api-key": key } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { totals: unknown }).totals;
}

async function kids(url: string): Promise<string[]> {
  return ((await (await fetch(`${url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
}

describe("modctl store copy", () => {
  it("moves a stopped SQLite deployment to PostgreSQL: keys, usage, policy, sessions and signing key carry over", async () => {
    const dataDir = tempDir();
    const sqliteEnv = { DATA_DIR: dataDir };
    const old = await serve(sqliteEnv);
    const account = await old.ctx.accounts.createAccount({ email: "mover@example.test", plan: "pro" });
    const { key } = await old.ctx.accounts.createKey(account.id, "laptop");
    json(await modctl(["policy", "set", "--account", account.id, "--file", "-"], sqliteEnv,
      JSON.stringify({ block_list: [{ term: "camper", category: "harassment" }] })));
    for (let i = 0; i < 5; i++) await moderate(old.url, key, `request ${i}, naïve 😀`);
    const session = await createSessionStore(old.ctx.db, Date.now).create(account.id);
    const usageBefore = await usageTotals(old.url, key);
    const kidsBefore = await kids(old.url);
    // Stopped cleanly, the server writes its journal: a copy made while it ran is refused (below).
    await old.close();

    const target = await postgresTarget();
    const run = await modctl(["store", "copy", "--to", target], sqliteEnv);
    const summary = json(run);
    expect(summary).toMatchObject({ from: "sqlite", to: "postgres", tables: { accounts: 1, api_keys: 1, dashboard_sessions: 1, policy_versions: 1 } });
    expect(summary.tables.usage).toBeGreaterThan(0);
    expect(run.stderr).toContain("Signing keys are not in the store");

    // The same DATA_DIR, now with DATABASE_URL: its signing key and an empty journal stay in use.
    const moved = await serve({ ...sqliteEnv, DATABASE_URL: target });
    try {
      expect(await usageTotals(moved.url, key)).toEqual(usageBefore);
      const answer = await moderate(moved.url, key, "what a c.a.m.p.e.r");
      expect(answer.policy?.version).toBe(1);
      expect(answer.results[0]!.categories.harassment!.flagged).toBe(true);
      expect(await createSessionStore(moved.ctx.db, Date.now).find(session.token)).toMatchObject({ accountId: account.id });
      expect(await kids(moved.url)).toEqual(kidsBefore);
    } finally {
      await moved.close();
    }

    // Into a store that holds rows: refused, exit 1, the target untouched.
    const again = await modctl(["store", "copy", "--to", target], sqliteEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("modctl: the target store is not empty (rows in accounts,");

    // And back: PostgreSQL (DATABASE_URL, as the server selects it) to a new SQLite file.
    const backDir = tempDir();
    const back = json(await modctl(["store", "copy", "--to", path.join(backDir, "moderation.sqlite")], { ...sqliteEnv, DATABASE_URL: target }));
    expect(back).toMatchObject({ from: "postgres", to: "sqlite", tables: { ...summary.tables, usage: expect.any(Number), usage_journal: expect.any(Number) } });
    const usage = json(await modctl(["usage", "--account", account.id, "--granularity", "day"], { DATA_DIR: backDir }));
    expect(usage.totals.requests).toBe((usageBefore as { requests: number }).requests + 1);
  });

  it("refuses while the metering journal holds usage not yet in the store, and a bad --to", async () => {
    const dataDir = tempDir();
    json(await modctl(["account", "create", "--email", "j@example.test", "--plan", "free"], { DATA_DIR: dataDir }));
    fs.mkdirSync(path.join(dataDir, "metering-journal"), { recursive: true });
    fs.writeFileSync(path.join(dataDir, "metering-journal", "abc-1-00.00000001.seg"), "");
    const refused = await modctl(["store", "copy", "--to", path.join(dataDir, "copy.sqlite")], { DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("holds 1 metering journal segment(s), usage not yet in the store: stop every server first");
    expect(fs.existsSync(path.join(dataDir, "copy.sqlite"))).toBe(false);

    const bad = await modctl(["store", "copy", "--to", "mysql://x/y"], { DATA_DIR: dataDir });
    expect([bad.code, bad.stderr]).toEqual([2, "modctl: --to must be a postgres:// (or postgresql://) URL or the path of a SQLite file\n"]);
    const none = await modctl(["store", "copy", "--to", "x.sqlite"], { DATA_DIR: path.join(dataDir, "nothing") });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("modctl: no store at");
  });
});

describe("modctl store backup", () => {
  it("takes a consistent copy while the server writes, and never overwrites a file", async () => {
    const dataDir = tempDir();
    const server = await serve({ DATA_DIR: dataDir, METERING_FLUSH_MS: "50" });
    const out = path.join(tempDir(), "backup.sqlite");
    let writing = true;
    let made = 0;
    try {
      const account = await server.ctx.accounts.createAccount({ email: "busy@example.test", plan: "enterprise", rpm: 1_000_000 });
      const { key } = await server.ctx.accounts.createKey(account.id, "load");
      // Accounts, keys and usage flushes (every 50 ms) land while the backup runs.
      const load = (async () => {
        while (writing) {
          await server.ctx.accounts.createAccount({ email: `w${made}@example.test`, plan: "free" });
          made++;
          await moderate(server.url, key, "keep writing");
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const atStart = made;
      const result = json(await modctl(["store", "backup", "--out", out], { DATA_DIR: dataDir }));
      writing = false;
      await load;
      expect(result).toMatchObject({ file: out, bytes: fs.statSync(out).size });
      expect(fs.statSync(out).mode & 0o777).toBe(0o600);

      const copy = new BetterSqlite3(out, { readonly: true });
      try {
        expect(copy.prepare("PRAGMA integrity_check").pluck().all()).toEqual(["ok"]);
        expect(copy.prepare("SELECT COUNT(*) FROM accounts").pluck().get()).toBeGreaterThanOrEqual(atStart + 1);
        expect(copy.prepare("SELECT COUNT(*) FROM usage").pluck().get()).toBeGreaterThan(0);
      } finally {
        copy.close();
      }
      expect(fs.readdirSync(path.dirname(out))).toEqual(["backup.sqlite"]);

      const twice = await modctl(["store", "backup", "--out", out], { DATA_DIR: dataDir });
      expect([twice.code, twice.stderr]).toEqual([1, `modctl: ${out} exists; refusing to overwrite it\n`]);
    } finally {
      writing = false;
      await server.close();
    }
  });

  it("points a PostgreSQL store at pg_dump (exit 2)", async () => {
    const run = await modctl(["store", "backup", "--out", path.join(tempDir(), "b.sqlite")], { DATABASE_URL: POSTGRES_URL });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("modctl: store backup copies the embedded SQLite store; this one is PostgreSQL (DATABASE_URL): back it up with pg_dump (docs/operations-database.md)\n");
  });
});
