import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callModerate, PROTOCOLS } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { eventually, findFreePort, startRedisServer, type RedisServerProcess } from "./redis-test-support.js";

const GRPC_UNAVAILABLE = 14;
const body = { input: [{ type: "text", text: "hello there" }] };

// A private redis-server per suite, so stopping it cannot disturb anything else using the shared one.
// The timeout is generous: a stopped Redis is refused at once (no offline queue), not timed out.
describe.each(["closed", "open"] as const)("when Redis goes away (RATE_LIMIT_FAILURE_MODE=%s)", (failureMode) => {
  let redisPort: number;
  let redis: RedisServerProcess | undefined;
  let server: TestServer;
  beforeAll(async () => {
    redisPort = await findFreePort();
    redis = await startRedisServer(redisPort);
    server = await startTestServer({
      env: { REDIS_URL: redis.url, RATE_LIMIT_FAILURE_MODE: failureMode, RATE_LIMIT_TIMEOUT_MS: "1000" },
    });
  });
  afterAll(async () => {
    await server?.close();
    await redis?.stop();
  });

  async function readiness(): Promise<{ status: number; body: any }> {
    const response = await fetch(`${server.httpUrl}/readyz`);
    return { status: response.status, body: await response.json() };
  }

  it("follows the failure mode on every protocol while Redis is down, and recovers without a restart", async () => {
    const { key } = await server.createAccount("free");
    const before = await callModerate("json", server, body, key);
    expect(before, JSON.stringify(before)).toMatchObject({ ok: true });

    await redis!.stop();
    for (const protocol of PROTOCOLS) {
      const outcome = await callModerate(protocol, server, body, key);
      if (failureMode === "closed") {
        expect(outcome).toMatchObject({
          ok: false,
          code: "rate_limiter_unavailable",
          status: protocol === "json" ? 503 : GRPC_UNAVAILABLE,
          message: "The rate limiter is temporarily unavailable and the request was not processed. Retry shortly.",
        });
        expect(outcome.headers["retry-after"]).toBe("1");
      } else {
        expect(outcome.ok).toBe(true);
      }
      // What is known without the store is still stated.
      expect(outcome.headers["x-ratelimit-limit"]).toBe("10");
      expect(outcome.headers["ratelimit-policy"]).toBe('"per-minute";q=10;w=60');
    }
    // Served unchecked calls are counted for the operator, refused ones are not.
    const uncounted = /^moderation_rate_limit_uncounted_total (\d+)$/m.exec(await server.ctx.metrics.render())?.[1];
    expect(Number(uncounted)).toBe(failureMode === "open" ? PROTOCOLS.length : 0);
    const unready = await readiness();
    if (failureMode === "closed") {
      expect(unready).toMatchObject({ status: 503, body: { checks: { rate_limiter: "failing" } } });
    } else {
      expect(unready.status).toBe(200);
    }

    redis = await startRedisServer(redisPort);
    // The restarted server is empty, so the account starts over with its full budget.
    const recovered = await eventually(async () => {
      const outcome = await callModerate("grpc", server, body, key);
      if (outcome.headers["x-ratelimit-remaining"] === undefined) throw new Error("not counted yet");
      return outcome;
    });
    expect(recovered).toMatchObject({ ok: true });
    expect(recovered.headers["x-ratelimit-remaining"]).toBe("9");
    expect((await readiness()).status).toBe(200);
  });
});
