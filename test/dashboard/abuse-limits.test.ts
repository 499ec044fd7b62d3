import { afterAll, afterEach, describe, expect, it } from "vitest";
import { callModerate } from "../support/protocol-clients.js";
import { REDIS_URL, startTestServer, type TestServer } from "../support/test-server.js";
import { deleteKeys, findFreePort, startRedisServer, uniqueKeyPrefix } from "../rate-limit/redis-test-support.js";
import { createFormClient } from "./form-client.js";

const RIGHT = "correct horse battery staple";
const WRONG = "wrong horse battery staple";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A fake clock that starts now, so back-off and windows can be crossed without sleeping. */
function fakeNow() {
  let now = Date.now();
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

async function start(env: Record<string, string>, clock?: { now: () => number }): Promise<TestServer> {
  const server = await startTestServer({ env, ...(clock ? { overrides: { clock: clock.now } } : {}) });
  servers.push(server);
  return server;
}

async function accountWithPassword(server: TestServer, email: string): Promise<void> {
  const client = createFormClient(server.httpUrl);
  expect((await client.signup(email, RIGHT)).status).toBe(303);
}

/** One log-in from a fresh browser; `ip` is sent as X-Forwarded-For (believed only under TRUST_PROXY). */
async function logIn(server: TestServer, email: string, password: string, ip?: string) {
  const client = createFormClient(server.httpUrl);
  const headers: Record<string, string> = ip ? { "x-forwarded-for": ip } : {};
  await client.get("/dashboard/login", headers);
  return client.post("/dashboard/login", { email, password }, headers);
}

/** Runs `tasks` with at most `width` at once, keeping their order in the result. */
async function inParallel<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

const tally = (statuses: number[]) => statuses.reduce<Record<number, number>>((counts, s) => ({ ...counts, [s]: (counts[s] ?? 0) + 1 }), {});

describe("log-in throttling", () => {
  // 230 page loads and 30 scrypts: minutes on a loaded 2-core machine, seconds otherwise.
  it("throttles 200 attempts from one IP against 40 emails, whatever X-Forwarded-For it claims", { timeout: 180_000 }, async () => {
    const server = await start({ LOGIN_ATTEMPTS_PER_IP: "30", SIGNUPS_PER_IP: "100" });
    const emails = Array.from({ length: 40 }, (_, i) => `target-${i}@example.test`);
    await accountWithPassword(server, emails[0]!);
    // Without TRUST_PROXY the header is ignored: rotating it buys nothing.
    const statuses = await inParallel(200, 6, async (i) => (await logIn(server, emails[i % 40]!, WRONG, `10.9.${i % 250}.1`)).status);
    expect(tally(statuses)).toEqual({ 401: 30, 429: 170 });
    const refused = await logIn(server, emails[0]!, RIGHT);
    expect(refused.status).toBe(429);
    expect(refused.html).toContain("Too many log-in attempts from your network. Try again in");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(15 * 60);
  });

  it("behind a trusted proxy tells clients apart: an attacker's failures lock neither the victim nor other users", async () => {
    const server = await start({ TRUST_PROXY: "127.0.0.1", LOGIN_ATTEMPTS_PER_IP: "8" });
    await accountWithPassword(server, "victim@example.test");
    await accountWithPassword(server, "bystander@example.test");
    const attacker = "203.0.113.7";
    for (let i = 0; i < 5; i++) expect((await logIn(server, "victim@example.test", WRONG, attacker)).status).toBe(401);
    // The strict per-(email, IP) lock holds the attacker's address only.
    expect((await logIn(server, "victim@example.test", RIGHT, attacker)).status).toBe(429);
    expect((await logIn(server, "victim@example.test", RIGHT, "198.51.100.20")).status).toBe(303);
    // The attacker's address runs out of attempts; the bystander behind the same proxy does not.
    // (The locked attempt above was refused before counting; 5 + 3 = the address's 8.)
    for (let i = 0; i < 3; i++) expect((await logIn(server, `other-${i}@example.test`, WRONG, attacker)).status).toBe(401);
    const throttled = await logIn(server, "bystander@example.test", RIGHT, attacker);
    expect(throttled.status).toBe(429);
    expect(throttled.html).toContain("from your network");
    expect((await logIn(server, "bystander@example.test", RIGHT, "198.51.100.21")).status).toBe(303);
    // Refusals name their code as the API's do, so logs and metrics can tell a brute force
    // (a security audit found the log-in's 401s and 429s counted with no code).
    expect([throttled.headers.get("x-error-code"), (await logIn(server, "x@example.test", WRONG, "198.51.100.22")).headers.get("x-error-code")]).toEqual([
      "rate_limit_exceeded", "invalid_credentials",
    ]);
    const metrics = await server.ctx.metrics.render();
    expect(metrics).toMatch(/moderation_requests_total\{[^}]*route="\/dashboard\/login"[^}]*status="429"[^}]*code="rate_limit_exceeded"[^}]*\} [1-9]/);
  });

  it("slows an account under attack from many IPs with a back-off, never a lock-out", async () => {
    const clock = fakeNow();
    const server = await start({ TRUST_PROXY: "127.0.0.1", LOGIN_FAILURES_PER_ACCOUNT: "3" }, clock);
    await accountWithPassword(server, "popular@example.test");
    for (let i = 0; i < 4; i++) expect((await logIn(server, "popular@example.test", WRONG, `192.0.2.${i + 1}`)).status).toBe(401);
    // Four failures, budget three: one attempt per 2 s now, whoever makes it.
    const slowed = await logIn(server, "popular@example.test", WRONG, "192.0.2.50");
    expect(slowed.status).toBe(429);
    expect(slowed.html).toContain("This account has had many failed log-ins. Try again in");
    const wait = Number(slowed.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(2);
    expect((await logIn(server, "popular@example.test", RIGHT, "198.51.100.9")).status).toBe(429);
    clock.advance(wait * 1000);
    // The owner gets in after the back-off, from an address the attacker never used.
    expect((await logIn(server, "popular@example.test", RIGHT, "198.51.100.9")).status).toBe(303);
    // Other accounts were never slowed.
    await accountWithPassword(server, "quiet@example.test");
    expect((await logIn(server, "quiet@example.test", RIGHT, "192.0.2.50")).status).toBe(303);
  });
});

describe("log-in attempts sent at once", () => {
  // An attempt counts when it starts, not once its password is checked (about 100 ms of scrypt):
  // counted afterwards, 28 guesses sent at once all found the counts at 0 and all ran.
  it("get the pair's five checks from one address, and the account's budget from many", async () => {
    const server = await start({ TRUST_PROXY: "127.0.0.1" });
    await accountWithPassword(server, "burst@example.test");
    const fromOne = await Promise.all(Array.from({ length: 12 }, () => logIn(server, "burst@example.test", WRONG, "203.0.113.9")));
    expect(tally(fromOne.map((r) => r.status))).toEqual({ 401: 5, 429: 7 });
    const tight = await start({ TRUST_PROXY: "127.0.0.1", LOGIN_FAILURES_PER_ACCOUNT: "3" });
    await accountWithPassword(tight, "many@example.test");
    // Three failures in budget, then one attempt per back-off interval, whoever makes it.
    const fromMany = await Promise.all(Array.from({ length: 12 }, (_, i) => logIn(tight, "many@example.test", WRONG, `198.51.100.${i + 1}`)));
    expect(tally(fromMany.map((r) => r.status))).toEqual({ 401: 4, 429: 8 });
  });

  it("the password form is held to the account's back-off and the address's limit, as a log-in is", async () => {
    const server = await start({ TRUST_PROXY: "127.0.0.1", LOGIN_FAILURES_PER_ACCOUNT: "3" });
    const owner = createFormClient(server.httpUrl);
    expect((await owner.signup("stolen@example.test", RIGHT)).status).toBe(303);
    await owner.get("/dashboard/password");
    const change = (ip: string) => owner.post("/dashboard/password", { current: WRONG, password: "a brand new passphrase here", confirm: "a brand new passphrase here" }, { "x-forwarded-for": ip });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await change(`192.0.2.${i + 1}`)).status);
    expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
    expect(statuses.slice(4)).toEqual([429, 429]);
    const refused = await change("192.0.2.99");
    expect(refused.html).toContain("This account has had many failed log-ins. Try again in");
  });
});

describe("password hashing cap", () => {
  it("answers a log-in flood past the queue with 503 and a clear message, and the API keeps serving", async () => {
    const server = await start({ PASSWORD_HASH_CONCURRENCY: "1", PASSWORD_HASH_QUEUE: "2", LOGIN_ATTEMPTS_PER_IP: "1000" });
    const { key } = await server.createAccount("enterprise", 1_000_000);
    const clients = await Promise.all(
      Array.from({ length: 24 }, async () => {
        const client = createFormClient(server.httpUrl);
        await client.get("/dashboard/login");
        return client;
      }),
    );
    const flood = Promise.all(
      clients.map((client, i) => client.post("/dashboard/login", { email: `random-${i}-${Math.random()}@example.test`, password: WRONG })),
    );
    const api = await callModerate("json", server, { input: [{ type: "text", text: "hello" }] }, key);
    const answers = await flood;
    expect(api.ok).toBe(true);
    const counts = tally(answers.map((a) => a.status));
    expect(Object.keys(counts).sort()).toEqual(["401", "503"]);
    expect(counts[401]).toBeGreaterThanOrEqual(3);
    const busy = answers.find((a) => a.status === 503)!;
    expect(busy.html).toContain("The service is handling too many log-ins and sign-ups right now. Try again in a few seconds.");
    expect(busy.headers.get("retry-after")).toBe("1");
    // Once the flood is over, log-ins work again.
    expect((await logIn(server, "nobody@example.test", WRONG)).status).toBe(401);
  });
});

describe("sign-up limits and password strength", () => {
  it("limits sign-ups per client IP; weak passwords are refused without using the allowance", async () => {
    const server = await start({ TRUST_PROXY: "127.0.0.1", SIGNUPS_PER_IP: "3" });
    const signUp = async (email: string, ip: string, password = RIGHT) => {
      const client = createFormClient(server.httpUrl);
      await client.get("/dashboard/signup", { "x-forwarded-for": ip });
      return client.post("/dashboard/signup", { email, password }, { "x-forwarded-for": ip });
    };
    const weak = await signUp("weak@example.test", "198.51.100.1", "aaaaaaaaaa");
    expect(weak.status).toBe(400);
    expect(weak.html).toContain("This password is too easy to guess");
    for (let i = 0; i < 3; i++) expect((await signUp(`farm-${i}@example.test`, "198.51.100.1")).status).toBe(303);
    const fourth = await signUp("farm-3@example.test", "198.51.100.1");
    expect([fourth.status, fourth.headers.get("x-error-code"), weak.headers.get("x-error-code")]).toEqual([429, "rate_limit_exceeded", "invalid_request"]);
    expect(fourth.html).toContain("Too many sign-ups from your network. Try again in");
    expect(Number(fourth.headers.get("retry-after"))).toBeGreaterThan(3000);
    expect(await server.ctx.accounts.findAccountByEmail("farm-3@example.test")).toBeUndefined();
    expect((await signUp("neighbour@example.test", "198.51.100.2")).status).toBe(303);
  });
});

describe("limits shared by replicas (Redis store)", () => {
  const keyPrefix = uniqueKeyPrefix("dashboard");
  afterAll(async () => {
    await deleteKeys(REDIS_URL, keyPrefix);
  });

  it("counts one IP's log-in attempts across replicas", async () => {
    const env = { REDIS_URL, RATE_LIMIT_KEY_PREFIX: keyPrefix, RATE_LIMIT_TIMEOUT_MS: "2000", LOGIN_ATTEMPTS_PER_IP: "4" };
    const [a, b] = await Promise.all([start(env), start(env)]);
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await logIn(i % 2 ? a! : b!, `spread-${i}@example.test`, WRONG)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });

  it("follows RATE_LIMIT_FAILURE_MODE when that store is down: closed answers 503, open lets the log-in through", async () => {
    const redis = await startRedisServer(await findFreePort());
    try {
      const closed = await start({ REDIS_URL: redis.url, RATE_LIMIT_TIMEOUT_MS: "1000" });
      const open = await start({ REDIS_URL: redis.url, RATE_LIMIT_TIMEOUT_MS: "1000", RATE_LIMIT_FAILURE_MODE: "open" });
      await accountWithPassword(closed, "steady@example.test");
      await redis.stop();
      const refused = await logIn(closed, "steady@example.test", RIGHT);
      expect(refused.status).toBe(503);
      expect(refused.html).toContain("Log-in and sign-up are briefly unavailable. Try again in a moment.");
      expect(refused.headers.get("retry-after")).toBe("1");
      // Open: the password is still checked (and the per-(email, IP) lock, in SQL, still applies).
      expect((await logIn(open, "nobody@example.test", WRONG)).status).toBe(401);
    } finally {
      await redis.stop();
    }
  });
});
