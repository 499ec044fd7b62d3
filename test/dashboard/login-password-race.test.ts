import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountStore, type AccountStore } from "../../src/accounts/account-store.js";
import type { PasswordHasher } from "../../src/dashboard/password.js";
import { createSessionStore, type SessionStore } from "../../src/dashboard/session-store.js";
import type { Database } from "../../src/storage/database.js";
import { pollUntil } from "../support/poll.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { createStoreLocation, fakeClock, STORE_KINDS, type StoreLocation } from "../storage/store-fixtures.js";
import { createFormClient } from "./form-client.js";

// A log-in reads the account's hash, runs scrypt (queued, 100 ms and more under load), then makes
// its session. A password change or a disabling that commits in between ends every session of the
// account; the log-in's session, made after it, outlived it (7 days) with the old password.

let n = 0;
const email = (label: string) => `${label}-${++n}-${Math.random().toString(36).slice(2, 7)}@example.test`;

describe.each(STORE_KINDS)("sessions only for the password checked, on %s", (kind) => {
  let location: StoreLocation;
  let db: Database;
  let other: Database;
  let accounts: AccountStore;
  let sessions: SessionStore;
  const clock = fakeClock();

  beforeAll(async () => {
    location = await createStoreLocation(kind);
    db = await location.open();
    // A second connection to the same store: modctl, or another replica.
    other = await location.open();
    accounts = createAccountStore(db, clock);
    sessions = createSessionStore(db, clock);
  });
  afterAll(async () => {
    await db?.close();
    await other?.close();
    await location?.destroy();
  });

  const sessionCount = async (accountId: string) =>
    (await db.query<{ token_hash: string }>(`SELECT token_hash FROM dashboard_sessions WHERE account_id = $1`, [accountId])).length;

  it("makes a session for the current hash, and none for a hash replaced since it was read", async () => {
    const account = await accounts.createAccount({ email: email("store"), plan: "free", passwordHash: "scrypt$first" });
    const session = await sessions.createIfPasswordIs(account.id, "scrypt$first");
    expect(session).toMatchObject({ accountId: account.id, expiresAt: clock() + 7 * 86_400_000 });
    expect(await sessions.find(session!.token)).toMatchObject({ accountId: account.id });

    await accounts.setPasswordHash(account.id, "scrypt$second");
    expect(await sessions.find(session!.token)).toBeUndefined();
    expect(await sessions.createIfPasswordIs(account.id, "scrypt$first")).toBeUndefined();
    expect(await sessionCount(account.id)).toBe(0);
    expect(await sessions.createIfPasswordIs(account.id, "scrypt$second")).toMatchObject({ accountId: account.id });
  });

  it("makes none for a disabled account, and none for an unknown one", async () => {
    const account = await accounts.createAccount({ email: email("disabled"), plan: "free", passwordHash: "scrypt$only" });
    await accounts.setDisabled(account.id, true);
    expect(await sessions.createIfPasswordIs(account.id, "scrypt$only")).toBeUndefined();
    expect(await sessionCount(account.id)).toBe(0);
    await accounts.setDisabled(account.id, false);
    expect(await sessions.createIfPasswordIs(account.id, "scrypt$only")).toMatchObject({ accountId: account.id });
    expect(await sessions.createIfPasswordIs("acct_missing", "scrypt$only")).toBeUndefined();
  });

  // PostgreSQL: under READ COMMITTED a plain INSERT … SELECT read the old hash while a change was
  // in flight (not yet committed), and its row landed after that change had deleted the sessions.
  it.runIf(kind === "postgres")("waits for a password change in flight on another connection, then makes no session", async () => {
    const account = await accounts.createAccount({ email: email("in-flight"), plan: "free", passwordHash: "scrypt$before" });
    let commit!: () => void;
    let changerPid: number | undefined;
    const change = other.transaction(async (tx) => {
      changerPid = Number((await tx.query<{ pid: unknown }>(`SELECT pg_backend_pid() AS pid`))[0]!.pid);
      // What setPasswordHash does, held open before COMMIT.
      await tx.execute(`UPDATE accounts SET password_hash = $1 WHERE id = $2`, ["scrypt$after", account.id]);
      await tx.execute(`DELETE FROM dashboard_sessions WHERE account_id = $1`, [account.id]);
      await new Promise<void>((resolve) => { commit = resolve; });
    });
    expect(await pollUntil(() => changerPid !== undefined && commit !== undefined)).toBe(true);

    let settled = false;
    const login = sessions.createIfPasswordIs(account.id, "scrypt$before").finally(() => { settled = true; });
    // Either the insert finished at once (it did not wait for the change), or it waits on its lock.
    const blocked = async () => (await db.query(`SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`, [changerPid!])).length > 0;
    for (const until = Date.now() + 10_000; !settled && !(await blocked()); ) {
      if (Date.now() > until) throw new Error("the insert neither finished nor waited for the change");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    commit();
    await change;
    expect(await login).toBeUndefined();
    expect(await sessionCount(account.id)).toBe(0);
  });
});

/**
 * Holds the next password check, once scrypt has answered, until the test lets it go: the window
 * in which a change can commit. The routes hold this same object, so they see the hold.
 */
function holdChecks(passwords: PasswordHasher) {
  const verify = passwords.verify;
  let next: { reached: () => void; released: Promise<void> } | undefined;
  passwords.verify = async (password, stored) => {
    const ok = await verify(password, stored);
    const hold = next;
    next = undefined;
    if (hold) {
      hold.reached();
      await hold.released;
    }
    return ok;
  };
  return {
    /** Holds the next check; `reached` resolves when it has been checked, and `release` lets it go on. */
    next() {
      let reached!: () => void;
      let release!: () => void;
      const hold = {
        reached: new Promise<void>((resolve) => { reached = resolve; }),
        release: () => release(),
      };
      next = { reached: () => reached(), released: new Promise<void>((resolve) => { release = resolve; }) };
      return hold;
    },
  };
}

describe.each(STORE_KINDS)("a dashboard log-in racing a password change or a disabling, on %s", (store) => {
  let server: TestServer;
  let holds: ReturnType<typeof holdChecks>;
  beforeAll(async () => {
    server = await startTestServer({ store, env: { SIGNUPS_PER_IP: "1000" } });
    holds = holdChecks(server.ctx.dashboard.passwords);
  });
  afterAll(() => server?.close());

  const accountOf = async (address: string) =>
    (await server.ctx.db.query<{ id: string }>(`SELECT id FROM accounts WHERE email = $1`, [address]))[0]!.id;
  const sessionCount = async (accountId: string) =>
    (await server.ctx.db.query<{ token_hash: string }>(`SELECT token_hash FROM dashboard_sessions WHERE account_id = $1`, [accountId])).length;

  /** Signs `address` up, then starts a log-in from another browser and holds it past its password check. */
  async function heldLogIn(address: string, password: string) {
    const owner = createFormClient(server.httpUrl);
    expect((await owner.signup(address, password)).status).toBe(303);
    const intruder = createFormClient(server.httpUrl);
    await intruder.get("/dashboard/login");
    const hold = holds.next();
    const login = intruder.post("/dashboard/login", { email: address, password });
    await hold.reached;
    return { owner, intruder, accountId: await accountOf(address), login, release: hold.release };
  }

  it("logs in as usual when nothing changes during the check", async () => {
    const { intruder, login, release } = await heldLogIn(email("calm"), "calm owner password 1");
    release();
    expect((await login).status).toBe(303);
    expect((await intruder.get("/dashboard")).status).toBe(200);
  });

  it("a log-in with the old password, checked while the password changed, gets no session", async () => {
    const address = email("changed");
    const { owner, intruder, accountId, login, release } = await heldLogIn(address, "the old password 1");
    await owner.get("/dashboard/password");
    const change = await owner.post("/dashboard/password", { current: "the old password 1", password: "the new password 2", confirm: "the new password 2" });
    expect(change.headers.get("location")).toBe("/dashboard/password?changed=1");
    release();
    const refused = await login;
    expect(refused.status).toBe(401);
    expect(refused.html).toContain("Email or password is incorrect.");
    expect(intruder.jar.has("mod_session")).toBe(false);
    // Only the owner's browser, which changed the password, holds a session.
    expect(await sessionCount(accountId)).toBe(1);
    expect((await owner.get("/dashboard")).status).toBe(200);
    expect((await intruder.get("/dashboard")).status).toBe(303);
  });

  it("a log-in checked while the account was disabled gets no session, which re-enabling would revive", async () => {
    const address = email("disabled");
    const { intruder, accountId, login, release } = await heldLogIn(address, "a disabled password 1");
    await server.ctx.accounts.setDisabled(accountId, true); // as `modctl account disable` does
    release();
    const refused = await login;
    expect(refused.status).toBe(403);
    expect(refused.html).toContain("This account is disabled.");
    expect(await sessionCount(accountId)).toBe(0);
    // Disabled before the check, the right password hears the same.
    await intruder.get("/dashboard/login");
    expect((await intruder.post("/dashboard/login", { email: address, password: "a disabled password 1" })).status).toBe(403);
    await server.ctx.accounts.setDisabled(accountId, false);
    expect((await intruder.get("/dashboard")).status).toBe(303);
  });

  it("a password change whose new password is replaced before its own session is made logs that browser out", async () => {
    const address = email("twice");
    const owner = createFormClient(server.httpUrl);
    expect((await owner.signup(address, "first owner password 1")).status).toBe(303);
    const accountId = await accountOf(address);
    const accounts = server.ctx.accounts;
    const setPasswordHash = accounts.setPasswordHash;
    // `modctl account set-password` commits right after the form's change, before its session.
    accounts.setPasswordHash = async (id, hash, options) => {
      const changed = await setPasswordHash(id, hash, options);
      await setPasswordHash(id, "scrypt$set-by-the-operator");
      return changed;
    };
    try {
      await owner.get("/dashboard/password");
      const change = await owner.post("/dashboard/password", { current: "first owner password 1", password: "second owner password 2", confirm: "second owner password 2" });
      expect(change.status).toBe(303);
      expect(change.headers.get("location")).toBe("/dashboard/login");
    } finally {
      accounts.setPasswordHash = setPasswordHash;
    }
    expect(owner.jar.has("mod_session")).toBe(false);
    expect(await sessionCount(accountId)).toBe(0);
  });

  it("two password changes at once: one is told it changed, the other that the password changed meanwhile", async () => {
    // Both were told "Password changed" and only one of the new passwords logged in (a race audit).
    const address = email("two-changes");
    const first = createFormClient(server.httpUrl);
    expect((await first.signup(address, "original owner password 1")).status).toBe(303);
    const second = createFormClient(server.httpUrl);
    await second.get("/dashboard/login");
    expect((await second.post("/dashboard/login", { email: address, password: "original owner password 1" })).status).toBe(303);
    const accounts = server.ctx.accounts;
    const setPasswordHash = accounts.setPasswordHash;
    // Both current passwords are checked before either change writes.
    let arrived = 0;
    let bothChecked!: () => void;
    const checked = new Promise<void>((resolve) => (bothChecked = resolve));
    accounts.setPasswordHash = async (...args) => {
      if (++arrived === 2) bothChecked();
      await checked;
      return setPasswordHash(...args);
    };
    try {
      await first.get("/dashboard/password");
      await second.get("/dashboard/password");
      const answers = await Promise.all([
        first.post("/dashboard/password", { current: "original owner password 1", password: "first new password 2", confirm: "first new password 2" }),
        second.post("/dashboard/password", { current: "original owner password 1", password: "second new password 3", confirm: "second new password 3" }),
      ]);
      const told = answers.map((r) => r.status === 303 && r.headers.get("location") === "/dashboard/password?changed=1");
      expect(told.filter(Boolean)).toHaveLength(1);
      const refused = answers[told[0] ? 1 : 0]!;
      expect([refused.status, refused.headers.get("x-error-code")]).toEqual([401, "invalid_credentials"]);
      expect(refused.html).toContain("changed by another request meanwhile");
      const fresh = createFormClient(server.httpUrl);
      await fresh.get("/dashboard/login");
      expect((await fresh.post("/dashboard/login", { email: address, password: told[0] ? "first new password 2" : "second new password 3" })).status).toBe(303);
    } finally {
      accounts.setPasswordHash = setPasswordHash;
    }
  });
});
