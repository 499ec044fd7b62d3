import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callModerate, PROTOCOLS, type Outcome, type Protocol } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { createFakeClock, type FakeClock } from "./fake-clock.js";
import { SHARED_REDIS_URL, deleteKeys, uniqueKeyPrefix } from "./redis-test-support.js";

const GRPC_RESOURCE_EXHAUSTED = 8;
const body = { input: [{ type: "text", text: "hello there" }] };
const keyPrefix = uniqueKeyPrefix("e2e");

/**
 * A real server on the shared Redis, with a fake clock so window edges need no waiting. The
 * Redis check gets a generous time limit (the default is 100 ms): the suite runs in parallel on
 * 2 cores, where a check can miss 100 ms, and such a refusal is not charged, so the loops below
 * that make ten calls and expect the 11th refused would see it let through. Timed-out checks
 * are covered by refusals-not-charged-e2e.test.ts and redis-failure.test.ts.
 */
async function startRedisBackedServer(clock: FakeClock): Promise<TestServer> {
  return startTestServer({
    env: { REDIS_URL: SHARED_REDIS_URL, RATE_LIMIT_KEY_PREFIX: keyPrefix, RATE_LIMIT_TIMEOUT_MS: "2000" },
    overrides: { clock: () => clock.now() },
  });
}

function rateLimitHeaders(outcome: Outcome): Record<string, string | undefined> {
  const h = outcome.headers;
  return {
    limit: h["x-ratelimit-limit"],
    remaining: h["x-ratelimit-remaining"],
    reset: h["x-ratelimit-reset"],
    policy: h["ratelimit-policy"],
    ratelimit: h["ratelimit"],
    retryAfter: h["retry-after"],
  };
}

afterAll(async () => {
  await deleteKeys(SHARED_REDIS_URL, keyPrefix);
});

/**
 * Ten answered requests for `key`. A call refused for another reason than the rate limit (a
 * deadline on a loaded machine, say) is not charged, so it is made again rather than counted: the
 * tests below are about the 11th, and such a refusal would let it through for the wrong reason.
 * The refusal is in the failure message if calls keep being refused.
 */
async function answerTen(protocol: Protocol, server: TestServer, key: string): Promise<void> {
  for (let answered = 0, calls = 1; answered < 10; calls++) {
    const outcome = await callModerate(protocol, server, body, key);
    if (outcome.ok) {
      answered++;
      continue;
    }
    expect(outcome.code, `call ${calls} was refused: ${JSON.stringify(outcome)}`).not.toBe("rate_limit_exceeded");
    expect(calls, `ten answers took more than 15 calls; the last refusal: ${JSON.stringify(outcome)}`).toBeLessThan(15);
  }
}

describe.each(PROTOCOLS)("rate limits over %s (Redis store)", (protocol) => {
  const clock = createFakeClock();
  let server: TestServer;
  beforeAll(async () => {
    server = await startRedisBackedServer(clock);
  });
  afterAll(() => server.close());

  it("lets a Free account make 10 requests a minute, with the limit headers on each", async () => {
    const { key } = await server.createAccount("free");
    for (let i = 1; i <= 10; i++) {
      const outcome = await callModerate(protocol, server, body, key);
      expect(outcome.ok).toBe(true);
      expect(rateLimitHeaders(outcome)).toEqual({
        limit: "10",
        remaining: String(10 - i),
        reset: "60",
        policy: '"per-minute";q=10;w=60',
        ratelimit: `"per-minute";r=${10 - i};t=60`,
        retryAfter: undefined,
      });
    }
  });

  it("refuses the 11th with rate_limit_exceeded, Retry-After and the limit headers", async () => {
    const { key } = await server.createAccount("free");
    await answerTen(protocol, server, key);
    clock.advance(15_000);
    const outcome = await callModerate(protocol, server, body, key);
    expect(outcome).toMatchObject({
      ok: false,
      code: "rate_limit_exceeded",
      status: protocol === "json" ? 429 : GRPC_RESOURCE_EXHAUSTED,
      message: "Rate limit exceeded. This account's plan allows 10 requests per minute. Retry in 45 s.",
    });
    expect(rateLimitHeaders(outcome)).toEqual({
      limit: "10",
      remaining: "0",
      reset: "45",
      policy: '"per-minute";q=10;w=60',
      ratelimit: '"per-minute";r=0;t=45',
      retryAfter: "45",
    });
  });

  it("lets the account back in exactly when its oldest request leaves the window", async () => {
    const { key } = await server.createAccount("free");
    await answerTen(protocol, server, key);
    clock.advance(59_999);
    expect(await callModerate(protocol, server, body, key)).toMatchObject({ ok: false, code: "rate_limit_exceeded" });
    clock.advance(1);
    const outcome = await callModerate(protocol, server, body, key);
    expect(outcome.ok).toBe(true);
    expect(rateLimitHeaders(outcome)).toMatchObject({ remaining: "9", reset: "60" });
  });

  it("keeps the limit headers on a request the handler rejects", async () => {
    const { key } = await server.createAccount("free");
    const outcome = await callModerate(protocol, server, { input: [] }, key);
    expect(outcome).toMatchObject({ ok: false, code: "invalid_request" });
    expect(rateLimitHeaders(outcome)).toMatchObject({ limit: "10", remaining: "9", reset: "60" });
  });

  it("sends no limit headers to an unauthenticated caller", async () => {
    const outcome = await callModerate(protocol, server, body);
    expect(outcome).toMatchObject({ ok: false, code: "missing_api_key" });
    expect(outcome.headers["x-ratelimit-limit"]).toBeUndefined();
  });
});

describe("one budget per account (Redis store)", () => {
  const clock = createFakeClock();
  let server: TestServer;
  beforeAll(async () => {
    server = await startRedisBackedServer(clock);
  });
  afterAll(() => server.close());

  async function callMany(calls: Array<[Protocol, string]>): Promise<Outcome[]> {
    const outcomes = [];
    for (const [protocol, key] of calls) outcomes.push(await callModerate(protocol, server, body, key));
    return outcomes;
  }

  it("counts every protocol and every key of the account against the same limit", async () => {
    const { accountId, key } = await server.createAccount("free");
    const second = (await server.ctx.accounts.createKey(accountId, "second")).key;
    const calls: Array<[Protocol, string]> = [
      ["json", key], ["json", second], ["json", key],
      ["connect", second], ["connect", key], ["connect", second],
      ["grpc-web", key], ["grpc-web", second],
      ["grpc", key], ["grpc", second],
    ];
    const outcomes = await callMany(calls);
    expect(outcomes.map((o) => o.ok)).toEqual(Array(10).fill(true));
    expect(outcomes.map((o) => o.headers["x-ratelimit-remaining"])).toEqual(["9", "8", "7", "6", "5", "4", "3", "2", "1", "0"]);
    for (const protocol of PROTOCOLS) {
      for (const k of [key, second]) {
        expect(await callModerate(protocol, server, body, k)).toMatchObject({ ok: false, code: "rate_limit_exceeded" });
      }
    }
  });

  it("does not let one account's use touch another's budget", async () => {
    const a = await server.createAccount("free");
    const b = await server.createAccount("free");
    for (let i = 0; i < 10; i++) await callModerate("json", server, body, a.key);
    expect(await callModerate("json", server, body, a.key)).toMatchObject({ ok: false, code: "rate_limit_exceeded" });
    expect(await callModerate("json", server, body, b.key)).toMatchObject({ ok: true });
  });

  it("applies each plan's number", async () => {
    for (const [plan, limit] of [["basic", 60], ["pro", 300]] as const) {
      const { key } = await server.createAccount(plan);
      const first = await callModerate("json", server, body, key);
      expect(first.headers["x-ratelimit-limit"]).toBe(String(limit));
      expect(first.headers["ratelimit-policy"]).toBe(`"per-minute";q=${limit};w=60`);
    }
    const enterprise = await server.createAccount("enterprise", 7);
    for (let i = 0; i < 7; i++) expect((await callModerate("json", server, body, enterprise.key)).ok).toBe(true);
    expect(await callModerate("json", server, body, enterprise.key)).toMatchObject({ ok: false, code: "rate_limit_exceeded" });
  });

  it("applies a plan change made through the store on the next request, without a restart", async () => {
    const { accountId, key } = await server.createAccount("free");
    for (let i = 0; i < 10; i++) await callModerate("grpc", server, body, key);
    expect(await callModerate("grpc", server, body, key)).toMatchObject({ ok: false, code: "rate_limit_exceeded" });

    await server.ctx.accounts.setPlan(accountId, "basic");
    const upgraded = await callModerate("grpc", server, body, key);
    expect(upgraded.ok).toBe(true);
    expect(rateLimitHeaders(upgraded)).toMatchObject({ limit: "60", remaining: "49" });

    await server.ctx.accounts.setPlan(accountId, "free");
    expect(await callModerate("grpc", server, body, key)).toMatchObject({ ok: false, code: "rate_limit_exceeded" });
  });

  it("applies `modctl plan set` from another process on the next request", async () => {
    const { accountId, key } = await server.createAccount("free");
    for (let i = 0; i < 10; i++) await callModerate("json", server, body, key);
    expect(await callModerate("json", server, body, key)).toMatchObject({ ok: false, code: "rate_limit_exceeded" });

    await promisify(execFile)(process.execPath, ["bin/modctl.mjs", "plan", "set", "--account", accountId, "--plan", "enterprise", "--rpm", "12"], {
      env: { ...process.env, ...server.env },
    });
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await callModerate("json", server, body, key));
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, false]);
    expect(outcomes[0]?.headers["x-ratelimit-limit"]).toBe("12");
  });
});

describe("rate limits with the embedded store (no REDIS_URL)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it("holds the same limit and headers", async () => {
    const { key } = await server.createAccount("free");
    const outcomes = [];
    for (let i = 0; i < 11; i++) outcomes.push(await callModerate("connect", server, body, key));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(10);
    expect(outcomes.at(-1)).toMatchObject({ ok: false, code: "rate_limit_exceeded", status: GRPC_RESOURCE_EXHAUSTED });
    expect(outcomes.at(-1)?.headers["retry-after"]).toMatch(/^\d+$/);
  });
});
