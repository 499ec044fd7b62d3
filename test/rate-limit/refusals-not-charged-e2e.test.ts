import { afterAll, afterEach, describe, expect, it } from "vitest";
import { callModerate, type Outcome } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { SHARED_REDIS_URL, deleteKeys, findFreePort, startRedisServer, uniqueKeyPrefix } from "./redis-test-support.js";

const body = { input: [{ type: "text", text: "hello there" }] };
const keyPrefix = uniqueKeyPrefix("refusals");

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await deleteKeys(SHARED_REDIS_URL, keyPrefix);
});

async function server(env: Record<string, string>): Promise<TestServer> {
  const started = await startTestServer({ env });
  cleanups.push(() => started.close());
  return started;
}

const statuses = (outcomes: Outcome[]) => outcomes.map((o) => (o.ok ? 200 : o.status));

/** A client that retries its 503s (quickly; the test does not wait out Retry-After). */
async function callRetrying503(app: TestServer, key: string, onRefusal: (refused: Outcome) => void): Promise<Outcome> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const outcome = await callModerate("json", app, body, key);
    if (outcome.ok || outcome.status !== 503) return outcome;
    onRefusal(outcome);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("never got past the 503s");
}

describe("a rate limiter that never charges refusals (Redis store)", () => {
  it("lets a burst right after start through: 10 at once for a Free account all get 200", async () => {
    // A generous limit: on a loaded test machine 100 ms checks can time out, which the next tests cover.
    const fresh = await server({ REDIS_URL: SHARED_REDIS_URL, RATE_LIMIT_KEY_PREFIX: keyPrefix, RATE_LIMIT_TIMEOUT_MS: "2000" });
    const { key } = await fresh.createAccount("free");
    const burst = await Promise.all(Array.from({ length: 10 }, () => callModerate("json", fresh, body, key)));
    expect(statuses(burst)).toEqual(Array(10).fill(200));
    expect(await callModerate("json", fresh, body, key)).toMatchObject({ ok: false, status: 429, code: "rate_limit_exceeded" });
  });

  it("a burst right after start that meets a stalled Redis: clients retrying their 503s still get all 10", async () => {
    const redis = await startRedisServer(await findFreePort());
    cleanups.push(async () => redis.stop());
    const app = await server({ REDIS_URL: redis.url, RATE_LIMIT_TIMEOUT_MS: "100" });
    const { key } = await app.createAccount("free");
    redis.freeze();
    // Thawed once every caller has met the stall, not after a fixed second: on a loaded machine
    // (the suite runs in parallel on 2 cores) some calls may reach the limiter only later. The
    // cap only ends a run that fails.
    const met = new Set<number>();
    const cap = setTimeout(() => redis.thaw(), 10_000);
    cleanups.push(async () => {
      clearTimeout(cap);
      redis.thaw();
    });
    let refusals = 0;
    const burst = await Promise.all(Array.from({ length: 10 }, (_, caller) => callRetrying503(app, key, () => {
      refusals++;
      met.add(caller);
      if (met.size === 10) redis.thaw();
    })));
    expect(statuses(burst)).toEqual(Array(10).fill(200));
    expect(met.size).toBe(10);
    expect(refusals).toBeGreaterThanOrEqual(10);
    // Retrying 503s here too: a 100 ms check can time out on a loaded machine, and is not charged.
    expect(await callRetrying503(app, key, () => undefined)).toMatchObject({ ok: false, status: 429, code: "rate_limit_exceeded" });
  });

  it("does not charge the 503s of a Redis stall: the account keeps its whole minute", async () => {
    const redis = await startRedisServer(await findFreePort());
    cleanups.push(() => redis.stop());
    const app = await server({ REDIS_URL: redis.url, RATE_LIMIT_TIMEOUT_MS: "100" });
    const { key } = await app.createAccount("free");
    expect((await callRetrying503(app, key, () => undefined)).ok).toBe(true);

    redis.freeze();
    const during: Outcome[] = [];
    try {
      for (let round = 0; round < 6; round++) {
        during.push(...(await Promise.all(Array.from({ length: 5 }, () => callModerate("json", app, body, key)))));
      }
    } finally {
      redis.thaw();
    }
    expect(statuses(during)).toEqual(Array(30).fill(503));
    for (const refused of during) {
      expect(refused).toMatchObject({ code: "rate_limiter_unavailable" });
      // A short stall: clients are asked to come back soon (1 s for the first 5 s of it).
      const retryAfter = Number(refused.headers["retry-after"]);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(30);
    }

    // After the stall the Free account still has 9 of its 10: none of the 30 refusals counted.
    const rest = await Promise.all(Array.from({ length: 9 }, () => callRetrying503(app, key, () => undefined)));
    expect(statuses(rest)).toEqual(Array(9).fill(200));
    expect(rest.map((o) => Number(o.headers["x-ratelimit-remaining"])).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await callRetrying503(app, key, () => undefined)).toMatchObject({ ok: false, status: 429 }); // past a timed-out check, as above
  });
});
