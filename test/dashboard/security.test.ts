import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/accounts/api-key-format.js";
import { callModerate } from "../support/protocol-clients.js";
import { startTestServer, type StoreKind, type TestServer } from "../support/test-server.js";
import { createFormClient } from "./form-client.js";

const text = { input: [{ type: "text", text: "hello" }] };

describe.each<StoreKind>(["sqlite", "postgres"])("dashboard security on %s", (store) => {
  let server: TestServer;
  beforeAll(async () => {
    // Every account here signs up from 127.0.0.1: lift the per-IP sign-up limit (abuse-limits.test.ts covers it).
    server = await startTestServer({ store, env: { SIGNUPS_PER_IP: "1000" } });
  });
  afterAll(() => server.close());
  const keyIdOf = async (secret: string) =>
    (await server.ctx.db.query<{ id: string }>(`SELECT id FROM api_keys WHERE secret_hash = $1`, [hashApiKey(secret)]))[0]!.id;

  it("stores an scrypt hash of the password and only a hash of the session token", async () => {
    const client = createFormClient(server.httpUrl);
    const signup = await client.signup("hash@example.test", "my secret password 1");
    expect(signup.status).toBe(303);
    const cookie = signup.headers.getSetCookie().find((c) => c.startsWith("mod_session="))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    const [row] = await server.ctx.db.query<{ password_hash: string }>(`SELECT password_hash FROM accounts WHERE email = $1`, ["hash@example.test"]);
    expect(row!.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(row!.password_hash).not.toContain("my secret password");
    const token = client.jar.get("mod_session")!;
    const sessions = await server.ctx.db.query<{ token_hash: string }>(`SELECT token_hash FROM dashboard_sessions`);
    expect(sessions.length).toBeGreaterThan(0);
    expect(sessions.map((s) => s.token_hash)).not.toContain(token);
  });

  // Before addresses were normalised, "zoe\u0308@" (decomposed) and "zoë@" were two accounts; the
  // migration that respelt older rows leaves such a pair as it is. The log-in looked the address up
  // normalised, so the older one could not log in (or, with the same password, reached the other),
  // and the two shared one failure count.
  it("logs in an older account stored under a spelling another account has normalised, and counts its failures apart", async () => {
    const composed = "zo\u00eb-login@example.test";
    const decomposed = "zoe\u0308-login@example.test";
    const sessionsOf = async (accountId: string) => (await server.ctx.db.query<{ token_hash: string }>(`SELECT token_hash FROM dashboard_sessions WHERE account_id = $1`, [accountId])).length;
    // Both stored as older versions stored them: sign-up now takes only addresses a browser's email field sends (ASCII).
    await createFormClient(server.httpUrl).signup("newer-spelling@example.test", "composed owner password 1");
    await createFormClient(server.httpUrl).signup("older-spelling@example.test", "decomposed owner password 2");
    await server.ctx.db.execute(`UPDATE accounts SET email = $1 WHERE email = $2`, [composed, "newer-spelling@example.test"]);
    await server.ctx.db.execute(`UPDATE accounts SET email = $1 WHERE email = $2`, [decomposed, "older-spelling@example.test"]);
    const older = (await server.ctx.db.query<{ id: string }>(`SELECT id FROM accounts WHERE email = $1`, [decomposed]))[0]!.id;
    const newer = (await server.ctx.db.query<{ id: string }>(`SELECT id FROM accounts WHERE email = $1`, [composed]))[0]!.id;
    const logIn = async (address: string, password: string) => {
      const client = createFormClient(server.httpUrl);
      await client.get("/dashboard/login");
      return (await client.post("/dashboard/login", { email: address, password })).status;
    };
    const olderSessions = await sessionsOf(older);
    expect(await logIn(decomposed, "decomposed owner password 2")).toBe(303);
    expect(await sessionsOf(older)).toBe(olderSessions + 1);
    expect(await logIn(composed, "composed owner password 1")).toBe(303);
    // The older owner's mistakes lock only the older owner's address out, not the newer one's.
    for (let i = 0; i < 5; i++) expect(await logIn(decomposed, "wrong password guess")).toBe(401);
    expect(await logIn(decomposed, "decomposed owner password 2")).toBe(429);
    const newerSessions = await sessionsOf(newer);
    expect(await logIn(composed, "composed owner password 1")).toBe(303);
    expect(await sessionsOf(newer)).toBe(newerSessions + 1);
  });

  it("marks the session cookie Secure behind a TLS-terminating proxy", async () => {
    const client = createFormClient(server.httpUrl, { origin: server.httpUrl.replace("http:", "https:") });
    await client.get("/dashboard/signup", { "x-forwarded-proto": "https" });
    const signup = await client.post("/dashboard/signup", { email: "tls@example.test", password: "a long enough password" }, { "x-forwarded-proto": "https" });
    expect(signup.status).toBe(303);
    expect(signup.headers.getSetCookie().find((c) => c.startsWith("mod_session="))).toMatch(/; Secure/);
  });

  it("refuses state-changing requests without the session's CSRF token or from another origin", async () => {
    const client = createFormClient(server.httpUrl);
    await client.signup("csrf@example.test");
    await client.get("/dashboard/keys");
    const noToken = await client.post("/dashboard/keys", { name: "x", _csrf: "" });
    expect(noToken.status).toBe(403);
    expect(noToken.html).toContain("The form has expired");

    const other = createFormClient(server.httpUrl);
    await other.signup("csrf-other@example.test");
    await other.get("/dashboard/keys");
    const foreignToken = await client.post("/dashboard/keys", { name: "x", _csrf: other.csrf });
    expect(foreignToken.status).toBe(403);

    const crossSite = createFormClient(server.httpUrl, { origin: "https://evil.example" });
    crossSite.jar.set("mod_session", client.jar.get("mod_session")!);
    await crossSite.get("/dashboard/keys");
    const forged = await crossSite.post("/dashboard/keys", { name: "forged" });
    expect(forged.status).toBe(403);
    expect(forged.html).toContain("did not come from the dashboard");

    const noOrigin = createFormClient(server.httpUrl, { origin: null });
    noOrigin.jar.set("mod_session", client.jar.get("mod_session")!);
    await noOrigin.get("/dashboard/keys");
    expect((await noOrigin.post("/dashboard/keys", { name: "x" })).status).toBe(403);

    const account = await server.ctx.accounts.findAccountByEmail("csrf@example.test");
    expect(await server.ctx.accounts.listKeys(account!.id)).toEqual([]);
  });

  it("takes forms only: a JSON post (whose fields need not be strings) is refused with 415 before it is read", async () => {
    const client = createFormClient(server.httpUrl);
    await client.get("/dashboard/login");
    for (const [path, body] of [["/dashboard/login", { email: 1, password: "x" }], ["/dashboard/signup", { email: ["a"], password: { x: 1 } }]] as const) {
      const response = await fetch(server.httpUrl + path, {
        method: "POST",
        headers: { cookie: [...client.jar].map(([k, v]) => `${k}=${v}`).join("; "), origin: server.httpUrl, "content-type": "application/json" },
        body: JSON.stringify({ _csrf: client.csrf, ...body }),
      });
      expect(response.status, path).toBe(415);
      expect(await response.text()).toContain("application/x-www-form-urlencoded");
    }
    // The form itself still works, charset parameter and all.
    const login = await client.post("/dashboard/login", { email: "nobody@example.test", password: "wrong password here" }, { "content-type": "application/x-www-form-urlencoded; charset=UTF-8" });
    expect(login.status).toBe(401);
  });

  it("lets an account neither see, revoke nor rotate another account's keys", async () => {
    const alice = createFormClient(server.httpUrl);
    const bob = createFormClient(server.httpUrl);
    await alice.signup("alice@example.test");
    await bob.signup("bob@example.test");
    const bobSecret = await bob.createKey("bob's key");
    const bobKeyId = await keyIdOf(bobSecret);

    const alicePage = await alice.get("/dashboard/keys");
    expect(alicePage.html).not.toContain(bobKeyId);
    const revoke = await alice.post(`/dashboard/keys/${bobKeyId}/revoke`, {});
    expect(revoke.status).toBe(404);
    expect(revoke.html).toContain("You have no API key with that id.");
    expect((await alice.post(`/dashboard/keys/${bobKeyId}/rotate`, {})).status).toBe(404);
    expect((await callModerate("json", server, text, bobSecret)).ok).toBe(true);

    // Usage is per account too: Bob's request does not show on Alice's overview.
    const overview = await alice.get("/dashboard");
    expect(overview.html).toMatch(/id="total-requests">0</);
  });

  it("rotates a key: the new secret works, the old one is refused", async () => {
    const carol = createFormClient(server.httpUrl);
    await carol.signup("carol@example.test");
    const oldSecret = await carol.createKey("ci");
    await carol.get("/dashboard/keys");
    const rotated = await carol.post(`/dashboard/keys/${await keyIdOf(oldSecret)}/rotate`, {});
    expect(rotated.status).toBe(200);
    const newSecret = /id="new-key-secret">([^<]+)</.exec(rotated.html)![1]!;
    expect((await callModerate("json", server, text, newSecret)).ok).toBe(true);
    expect(await callModerate("json", server, text, oldSecret)).toMatchObject({ ok: false, code: "invalid_api_key" });
    // A double click rotates once: the second hears that the key was already rotated (409), and one new key is live.
    const newId = await keyIdOf(newSecret);
    await carol.get("/dashboard/keys");
    const twice = await Promise.all([0, 1].map(() => carol.post(`/dashboard/keys/${newId}/rotate`, {})));
    expect(twice.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(twice.find((r) => r.status === 409)!.html).toContain("This key (");
    const accountId = (await server.ctx.accounts.findAccountByEmail("carol@example.test"))!.id;
    expect((await server.ctx.accounts.listKeys(accountId)).filter((k) => k.revokedAt === null)).toHaveLength(1);
  });

  it("limits failed log-ins per email and address, then refuses even the right password", async () => {
    const dave = createFormClient(server.httpUrl);
    await dave.signup("dave@example.test", "dave's real password");
    await dave.get("/dashboard");
    expect((await dave.post("/dashboard/logout", {})).status).toBe(303);
    for (let i = 0; i < 5; i++) {
      await dave.get("/dashboard/login");
      const wrong = await dave.post("/dashboard/login", { email: "dave@example.test", password: `wrong ${i}` });
      expect(wrong.status).toBe(401);
      expect(wrong.html).toContain("Email or password is incorrect.");
    }
    await dave.get("/dashboard/login");
    const locked = await dave.post("/dashboard/login", { email: "dave@example.test", password: "dave's real password" });
    expect(locked.status).toBe(429);
    expect(locked.html).toContain("Too many failed attempts");
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("logs in, and logging out ends the session on the server", async () => {
    const erin = createFormClient(server.httpUrl);
    await erin.signup("erin@example.test", "erin's password!");
    await erin.get("/dashboard");
    expect((await erin.post("/dashboard/logout", {})).status).toBe(303);
    await erin.get("/dashboard/login");
    const login = await erin.post("/dashboard/login", { email: "Erin@Example.test", password: "erin's password!" });
    expect(login).toMatchObject({ status: 303 });
    expect(login.headers.get("location")).toBe("/dashboard");
    const stolen = erin.jar.get("mod_session")!;
    expect((await erin.get("/dashboard")).status).toBe(200);
    await erin.get("/dashboard");
    expect((await erin.post("/dashboard/logout", {})).status).toBe(303);
    const replay = await fetch(`${server.httpUrl}/dashboard`, { redirect: "manual", headers: { cookie: `mod_session=${stolen}` } });
    expect(replay.status).toBe(303);
    expect(replay.headers.get("location")).toBe("/dashboard/login");
  });

  it("changes the account's password: the current one checked, the new one as at sign-up; other sessions end", async () => {
    const email = `grace-${store}@example.test`;
    const grace = createFormClient(server.httpUrl);
    await grace.signup(email, "grace's first password");
    const elsewhere = createFormClient(server.httpUrl);
    await elsewhere.get("/dashboard/login");
    expect((await elsewhere.post("/dashboard/login", { email, password: "grace's first password" })).status).toBe(303);
    expect((await elsewhere.get("/dashboard")).status).toBe(200);

    await grace.get("/dashboard/password");
    const change = (fields: Record<string, string>) => grace.post("/dashboard/password", fields);
    expect((await change({ current: "not it at all", password: "grace's second password", confirm: "grace's second password" })).status).toBe(401);
    await grace.get("/dashboard/password");
    expect((await change({ current: "grace's first password", password: "grace's second password", confirm: "another one entirely" })).status).toBe(400);
    await grace.get("/dashboard/password");
    const weak = await change({ current: "grace's first password", password: "password123", confirm: "password123" });
    expect(weak.status).toBe(400);
    await grace.get("/dashboard/password");
    const done = await change({ current: "grace's first password", password: "grace's second password", confirm: "grace's second password" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/dashboard/password?changed=1");
    // This browser goes on with a new session; the other is logged out.
    expect((await grace.get("/dashboard")).status).toBe(200);
    expect((await elsewhere.get("/dashboard")).status).toBe(303);
    const login = async (password: string) => {
      const client = createFormClient(server.httpUrl);
      await client.get("/dashboard/login");
      return (await client.post("/dashboard/login", { email, password })).status;
    };
    expect(await login("grace's first password")).toBe(401);
    expect(await login("grace's second password")).toBe(303);
    // Without a session the page sends you to log in.
    const anonymous = await fetch(`${server.httpUrl}/dashboard/password`, { redirect: "manual" });
    expect(anonymous.headers.get("location")).toBe("/dashboard/login");
  });

  it("counts a wrong current password as a failed log-in: the form is no way around the lock", async () => {
    const email = `heidi-${store}@example.test`;
    const heidi = createFormClient(server.httpUrl);
    await heidi.signup(email, "heidi's own password");
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      await heidi.get("/dashboard/password");
      statuses.push((await heidi.post("/dashboard/password", { current: `wrong guess ${i}`, password: "heidi's new password", confirm: "heidi's new password" })).status);
    }
    expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
    expect(statuses[5]).toBe(429);
    const other = createFormClient(server.httpUrl);
    await other.get("/dashboard/login");
    expect((await other.post("/dashboard/login", { email, password: "heidi's own password" })).status).toBe(429);
  });

  it("signing up while signed in ends the session of the first account, as logging in does", async () => {
    const frank = createFormClient(server.httpUrl);
    await frank.signup(`frank-${store}@example.test`, "frank's password!");
    const first = frank.jar.get("mod_session")!;
    expect((await frank.get("/dashboard")).status).toBe(200);
    const second = await frank.signup(`frank-two-${store}@example.test`, "frank's other password");
    expect(second.status).toBe(303);
    expect(frank.jar.get("mod_session")).not.toBe(first);
    const old = await fetch(`${server.httpUrl}/dashboard`, { redirect: "manual", headers: { cookie: `mod_session=${first}` } });
    expect(old.status).toBe(303);
  });
});
