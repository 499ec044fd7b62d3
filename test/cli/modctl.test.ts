import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDataDirKeyRing } from "../../src/signing/data-dir-key-store.js";
import { callModerate } from "../support/protocol-clients.js";
import { POSTGRES_URL, startTestServer, type StoreKind, type TestServer } from "../support/test-server.js";

// modctl against the store of a RUNNING server, as an operator would use it: every change
// must reach the server on its next request, without a restart.

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function modctl(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    // A clean environment: only what points modctl at the store under test.
    const child = spawn(process.execPath, ["bin/modctl.mjs", ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A successful run: exit 0, one JSON document on stdout. */
function json(run: Run): any {
  if (run.code !== 0) throw new Error(`modctl exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

const STORES: StoreKind[] = ["sqlite", "postgres"];

// Both stores at once: the runs are separate processes, so they overlap well.
describe("modctl next to a running server", () => {
  const servers = new Map<StoreKind, TestServer>();
  beforeAll(async () => {
    await Promise.all(STORES.map(async (store) => servers.set(store, await startTestServer({ store }))));
  });
  afterAll(() => Promise.all([...servers.values()].map((s) => s.close())));

  it.concurrent.for(STORES)("on %s: creates an account and a key that works at once, then revokes it and it is refused at once", { timeout: 120_000 }, async (store, { expect }) => {
    const server = servers.get(store)!;
    const email = `cli-${store}-${Date.now()}@example.test`;
    const account = json(await modctl(["account", "create", "--email", email, "--plan", "free"], server.env));
    expect(account).toMatchObject({ id: expect.stringMatching(/^acct_/), email, plan: "free", requestsPerMinute: 10 });

    const created = json(await modctl(["key", "create", "--account", account.id, "--name", "ci"], server.env));
    expect(created).toMatchObject({ id: expect.stringMatching(/^key_/), accountId: account.id, name: "ci", revokedAt: null });
    expect(created.key).toMatch(/^mod_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);

    const body = { input: [{ type: "text", text: "hello from the cli test" }] };
    expect((await callModerate("json", server, body, created.key)).ok).toBe(true);
    expect((await callModerate("grpc", server, body, created.key)).ok).toBe(true);

    const listed = json(await modctl(["key", "list", "--account", account.id], server.env));
    expect(listed).toEqual([expect.objectContaining({ id: created.id, name: "ci", prefix: created.prefix, revokedAt: null })]);
    expect(JSON.stringify(listed)).not.toContain(created.key.slice(created.prefix.length + 1));
    // No such account: not_found, as key create and usage answer it (it printed an empty list).
    const missing = await modctl(["key", "list", "--account", "acct_nope"], server.env);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr)).toEqual({ error: { code: "not_found", message: 'No account "acct_nope".' } });

    const revoked = json(await modctl(["key", "revoke", created.id], server.env));
    expect(revoked).toMatchObject({ id: created.id, revokedAt: expect.any(Number) });
    for (const protocol of ["json", "grpc"] as const) {
      expect(await callModerate(protocol, server, body, created.key)).toMatchObject({ ok: false, code: "invalid_api_key" });
    }

    // Plan changes land in the store the server reads on every request.
    const planned = json(await modctl(["plan", "set", "--account", account.id, "--plan", "enterprise", "--rpm", "5000"], server.env));
    expect(planned).toMatchObject({ id: account.id, plan: "enterprise", customRpm: 5000, requestsPerMinute: 5000 });
    expect(await server.ctx.accounts.getAccount(account.id)).toMatchObject({ plan: "enterprise", requestsPerMinute: 5000 });
  });

  it("refuses with exit 1, the API's error JSON on stderr and nothing on stdout", async () => {
    const server = servers.get("sqlite")!;
    const { accountId } = await server.createAccount();
    const taken = (await server.ctx.accounts.getAccount(accountId))!.email;
    const runs = await Promise.all([
      modctl(["account", "create", "--email", taken.toUpperCase(), "--plan", "pro"], server.env),
      modctl(["account", "create", "--email", "not an address", "--plan", "pro"], server.env),
      modctl(["key", "revoke", "key_doesnotexist"], server.env),
    ]);
    const codes = ["email_taken", "invalid_request", "not_found"];
    runs.forEach((run, i) => {
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toBe("");
      expect(JSON.parse(run.stderr)).toEqual({ error: { code: codes[i], message: expect.any(String) } });
    });
  });
});

describe.concurrent("modctl's command line", () => {
  const env = { DATA_DIR: "/tmp/modctl-usage-test-never-created" };

  it.for([
    ["an unknown command", ["frobnicate"], /modctl account create/],
    // The names of Object's own methods ran those methods, and modctl crashed on their answer.
    ["a command named like Object's methods", ["constructor"], /modctl account create/],
    ["toString as a command", ["toString"], /modctl account create/],
    ["a missing --plan", ["account", "create", "--email", "a@example.test"], /account create needs --email and --plan/],
    ["an unknown option", ["account", "create", "--email", "a@example.test", "--plan", "free", "--colour", "red"], /modctl: .*--colour/],
    ["a bad --rpm", ["plan", "set", "--account", "acct_x", "--plan", "enterprise", "--rpm", "lots"], /--rpm must be a whole number from 1 to 2147483647; got "lots"/],
    // 10^20 was stored on SQLite, and every call of the account then failed with internal_error.
    ["an --rpm past the column", ["account", "create", "--email", "a@example.test", "--plan", "enterprise", "--rpm", "99999999999999999999"], /--rpm must be a whole number from 1 to 2147483647/],
    // The argument parser took "-5" for an option and said only "ambiguous".
    ["a negative --rpm", ["plan", "set", "--account", "acct_x", "--plan", "enterprise", "--rpm", "-5"], /--rpm must be a whole number from 1 to 2147483647; got "-5"/],
    // The store refused it instead, exit 1, while a bad --rpm was 2.
    ["an unknown --plan", ["plan", "set", "--account", "acct_x", "--plan", "platinum"], /--plan must be one of free, basic, pro, enterprise; got "platinum"/],
    ["an unknown --plan on account create", ["account", "create", "--email", "p@example.com", "--plan", "Gold"], /--plan must be one of free, basic, pro, enterprise; got "Gold"/],
    ["enterprise without --rpm", ["account", "create", "--email", "e@example.com", "--plan", "enterprise"], /--plan enterprise needs --rpm N/],
    ["--rpm on another plan", ["plan", "set", "--account", "acct_x", "--plan", "free", "--rpm", "5"], /--rpm applies to --plan enterprise only, not "free"/],
    ["a usage granularity that does not exist", ["usage", "--account", "acct_x", "--granularity", "week"], /granularity/],
    ["a usage time that is no date", ["usage", "--account", "acct_x", "--from", "2026-02-30"], /--from/],
    // Number() took these; --rpm did not.
    ["--limit in exponent form", ["account", "list", "--limit", "1e2"], /--limit must be a whole number from 1 to 1000; got "1e2"/],
    ["--count in hex", ["invite", "create", "--count", "0x10"], /--count must be a whole number from 1 to 1000; got "0x10"/],
    ["a flag given twice", ["account", "create", "--email", "a@example.com", "--plan", "free", "--email=c@example.com"], /--email is given more than once/],
    ["key revoke without an id", ["key", "revoke"], /key revoke needs exactly one KEY_ID/],
    ["a policy file that cannot be read", ["policy", "set", "--account", "acct_x", "--file", "/nonexistent/policy.json"], /cannot read \/nonexistent\/policy\.json \(ENOENT\)/],
  ] as const)("exits 2 on %s, with a message on stderr", async ([_name, args, message], { expect }) => {
    const run = await modctl([...args], env);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(message);
  });

  it("exits 1 naming the new key to revoke when stdout cannot take its secret (it died on an unhandled ENOSPC, the key live)", async ({ expect }) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "modctl-full-"));
    const { id: accountId } = json(await modctl(["account", "create", "--email", "full@example.test", "--plan", "free"], { DATA_DIR: dataDir }));
    const full = spawnSync(process.execPath, ["bin/modctl.mjs", "key", "create", "--account", accountId, "--name", "lost"], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DATA_DIR: dataDir },
      stdio: ["ignore", fs.openSync("/dev/full", "w"), "pipe"],
      encoding: "utf8",
    });
    const keys = json(await modctl(["key", "list", "--account", accountId], { DATA_DIR: dataDir }));
    expect(keys).toHaveLength(1);
    expect(full.status).toBe(1);
    expect(full.stderr).toBe(`modctl: could not write the result to stdout (ENOSPC), but the command was carried out: the new API key ${keys[0].id} is live and its secret was not shown; revoke it (modctl key revoke ${keys[0].id}) and create another\n`);
  });

  it("refuses to list a key store whose keys.json is gone but whose private keys are there, as the server refuses to start on it", async ({ expect }) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "modctl-orphan-"));
    openDataDirKeyRing(path.join(dataDir, "signing"));
    fs.rmSync(path.join(dataDir, "signing", "keys.json"));
    const run = await modctl(["signing", "list"], { DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/holds private keys \(.*\.key\.pem\) but no keys\.json/);
  });

  it("exits 2 on a SIGNING_KEY_FILE that is not a key, as the server does and as for a bad SIGNING_KEY (it was 1)", async ({ expect }) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "modctl-keyfile-"));
    const file = path.join(dir, "not-a-key.pem");
    fs.writeFileSync(file, "garbage\n", { mode: 0o600 });
    const run = await modctl(["signing", "list"], { DATA_DIR: dir, SIGNING_KEY_FILE: file });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`modctl: SIGNING_KEY_FILE ${file} is not a PEM private key (expected "-----BEGIN PRIVATE KEY-----", PKCS#8)\n`);
  });

  it("exits 2 naming DATA_DIR when it lies under a file (it was a bare ENOTDIR, exit 1)", async ({ expect }) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "modctl-datadir-"));
    const file = path.join(dir, "a-file");
    fs.writeFileSync(file, "");
    const run = await modctl(["account", "list"], { DATA_DIR: path.join(file, "sub") });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/DATA_DIR .*a-file\/sub must be a directory this user can write \(ENOTDIR\)/);
  });

  it("exits 2 on a bad configuration", async ({ expect }) => {
    const run = await modctl(["key", "list", "--account", "acct_x"], { ...env, DATABASE_URL: "mysql://db/mod" });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/modctl: DATABASE_URL must start with postgres:\/\//);
  });

  it("exits 2 naming DATABASE_URL when PostgreSQL refuses its user or database (it printed pg's bare message, exit 1)", async ({ expect }) => {
    const noDatabase = new URL(POSTGRES_URL);
    noDatabase.pathname = "/no_such_database_for_modctl";
    const noUser = new URL(POSTGRES_URL);
    noUser.username = "no_such_role_for_modctl";
    for (const [url, said] of [[noDatabase, /database "no_such_database_for_modctl" does not exist/], [noUser, /role "no_such_role_for_modctl" does not exist/]] as const) {
      const run = await modctl(["key", "list", "--account", "acct_x"], { ...env, DATABASE_URL: url.href });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^modctl: DATABASE_URL: PostgreSQL refused the connection: /);
      expect(run.stderr).toMatch(said);
    }
  });

  it("refuses with exit 1 and the API's storage_unavailable JSON when the database does not answer", async ({ expect }) => {
    // Nothing listens on port 1: the connection is refused at once.
    const run = await modctl(["key", "list", "--account", "acct_x"], { ...env, DATABASE_URL: "postgres://postgres@127.0.0.1:1/none", DATABASE_CONNECT_TIMEOUT_MS: "500" });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr)).toEqual({ error: { code: "storage_unavailable", message: "The service's database is unavailable; retry shortly." } });
  });

  it("takes a kid after \"--\" as it is, even one like a negative number (it became \"--=-5abc\")", async ({ expect }) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "modctl-retire-"));
    openDataDirKeyRing(path.join(dataDir, "signing"));
    const run = await modctl(["signing", "retire", "--", "-5abcdef"], { DATA_DIR: dataDir });
    fs.rmSync(dataDir, { recursive: true, force: true });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr)).toEqual({ error: { code: "not_found", message: 'No published signing key has kid "-5abcdef".' } });
  });

  it("says so on stderr when it makes a new store (a mistyped DATA_DIR printed [] without a word)", async ({ expect }) => {
    const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "modctl-fresh-")), "typo");
    const first = await modctl(["account", "list"], { DATA_DIR: dataDir });
    const second = await modctl(["account", "list"], { DATA_DIR: dataDir });
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
    expect([first.code, JSON.parse(first.stdout)]).toEqual([0, []]);
    expect(first.stderr).toBe(`modctl: note: no store was at ${dataDir}/moderation.sqlite; made a new, empty one (is DATA_DIR the server's?)\n`);
    expect(second.stderr).toBe("");
  });

  it("prints help and exits 0 when asked", async ({ expect }) => {
    const run = await modctl(["--help"], env);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/modctl key revoke KEY_ID/);
    // Asked after a command too (it was an unknown option, exit 2).
    for (const args of [["account", "create", "--help"], ["signing", "list", "--help"]]) {
      const sub = await modctl(args, env);
      expect(sub.code).toBe(0);
      expect(sub.stderr).toMatch(/modctl account create --email E/);
    }
  });

  it("refuses an --after that names no account (it listed nothing, exit 0)", async ({ expect }) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "modctl-after-"));
    const run = await modctl(["account", "list", "--after", "acct_nope"], { DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    // (after the note that a new, empty store was made)
    expect(JSON.parse(run.stderr.trim().split("\n").at(-1)!)).toEqual({ error: { code: "not_found", message: 'No account "acct_nope".' } });
  });
});

// Found by an audit (session 52): run as a script, src/cli/main.ts did nothing and exited 0, so a
// script using it believed it had made the account.
it("runs as modctl when src/cli/main.ts is run as a script", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "modctl-script-"));
  try {
    const run = spawnSync(process.execPath, ["--import", "tsx", "src/cli/main.ts", "account", "create", "--email", "script@example.test", "--plan", "free"], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DATA_DIR: dataDir },
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ email: "script@example.test", plan: "free" });
    expect(spawnSync(process.execPath, ["--import", "tsx", "src/cli/main.ts", "bogus"], { encoding: "utf8" }).status).toBe(2);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
