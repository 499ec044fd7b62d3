import { randomUUID } from "node:crypto";
import { createClient } from "redis";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/base/logger.js";
import { RateLimiterUnavailableError } from "../../src/rate-limit/rate-limiter.js";
import { createRedisRateLimiter, type RedisRateLimiter } from "../../src/rate-limit/redis-rate-limiter.js";
import { createFakeClock } from "./fake-clock.js";
import { eventually, findFreePort, startRedisServer, type RedisServerProcess } from "./redis-test-support.js";

// Each test runs its own redis-server so it can stop, pause and restart it without touching the shared one.
describe("redis rate limiter when Redis misbehaves", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function startServer(port: number): Promise<RedisServerProcess> {
    const server = await startRedisServer(port);
    cleanups.push(() => server.stop());
    return server;
  }

  // A generous timeout where Redis is up or down (down is refused at once); a short one where it is frozen.
  function limiterFor(port: number, timeoutMs = 1_000): RedisRateLimiter {
    const limiter = createRedisRateLimiter({ url: `redis://127.0.0.1:${port}`, keyPrefix: "rl:", timeoutMs });
    cleanups.push(() => limiter.close());
    return limiter;
  }

  it("fails fast while Redis is down, then recovers by itself when it comes back", async () => {
    const port = await findFreePort();
    const server = await startServer(port);
    const limiter = limiterFor(port);
    await limiter.ready();
    const key = randomUUID();
    expect((await limiter.consume(key, 10)).allowed).toBe(true);

    await server.stop();
    await expect(limiter.consume(key, 10)).rejects.toBeInstanceOf(RateLimiterUnavailableError);
    // Still down: every call is refused at once (no offline queue), none waits for a reconnect.
    await expect(limiter.consume(key, 10)).rejects.toBeInstanceOf(RateLimiterUnavailableError);

    await startServer(port);
    // The new server has an empty script cache too, so this also covers the NOSCRIPT fallback.
    const decision = await eventually(() => limiter.consume(key, 10));
    expect(decision).toMatchObject({ allowed: true, limit: 10 });
  });

  it("answers per policy when Redis is down at startup, and connects once it is up", async () => {
    const port = await findFreePort();
    const limiter = limiterFor(port);
    const key = randomUUID();
    await expect(limiter.consume(key, 10)).rejects.toBeInstanceOf(RateLimiterUnavailableError);

    await startServer(port);
    await limiter.ready();
    expect(await limiter.consume(key, 10)).toMatchObject({ allowed: true, remaining: 9 });
  });

  it("times out when Redis is too slow, and works again once it answers", async () => {
    const port = await findFreePort();
    const server = await startServer(port);
    const limiter = limiterFor(port, 100);
    await limiter.ready();
    const key = randomUUID();
    expect((await eventually(() => limiter.consume(key, 10))).allowed).toBe(true);

    server.freeze();
    const slow = limiter.consume(key, 10);
    await expect(slow).rejects.toBeInstanceOf(RateLimiterUnavailableError);
    await expect(slow).rejects.toHaveProperty("cause.name", "TimeoutError");

    server.thaw();
    // The timed-out check ran when Redis caught up, and was taken back right after: not charged.
    const decision = await eventually(() => limiter.consume(key, 10));
    expect(decision.allowed).toBe(true);
    expect(decision.remaining).toBe(8);
  });

  it("logs a stall once when it starts and once when Redis answers again (a frozen Redis raises no client error)", async () => {
    const port = await findFreePort();
    const server = await startServer(port);
    const lines: { level: number; msg: string }[] = [];
    const log = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line)) });
    const limiter = createRedisRateLimiter({ url: `redis://127.0.0.1:${port}`, keyPrefix: "rl:", timeoutMs: 100, log });
    cleanups.push(() => limiter.close());
    await limiter.ready();
    const key = randomUUID();
    await eventually(() => limiter.consume(key, 10));
    server.freeze();
    for (let i = 0; i < 3; i++) await expect(limiter.consume(key, 10)).rejects.toBeInstanceOf(RateLimiterUnavailableError);
    expect(lines.filter((l) => /did not answer/.test(l.msg))).toHaveLength(1);
    server.thaw();
    await eventually(() => limiter.consume(key, 10));
    expect(lines.filter((l) => /answers again/.test(l.msg))).toHaveLength(1);
  });

  it("never charges checks that timed out, however many piled up during a stall", async () => {
    const port = await findFreePort();
    const server = await startServer(port);
    const limiter = limiterFor(port, 100);
    await limiter.ready();
    const key = randomUUID();
    expect((await eventually(() => limiter.consume(key, 10))).remaining).toBe(9);

    server.freeze();
    const stalled = await Promise.allSettled(Array.from({ length: 40 }, () => limiter.consume(key, 10)));
    expect(stalled.every((outcome) => outcome.status === "rejected")).toBe(true);
    // Checks that find the script cache empty also stay uncharged (no late EVAL fallback).
    const admin = createClient({ url: server.url });
    cleanups.push(async () => admin.destroy());
    server.thaw();
    await admin.connect();
    await admin.sendCommand(["SCRIPT", "FLUSH"]);
    server.freeze();
    const cold = await Promise.allSettled(Array.from({ length: 10 }, () => limiter.consume(key, 10)));
    expect(cold.every((outcome) => outcome.status === "rejected")).toBe(true);
    server.thaw();

    const decisions = [];
    for (let i = 0; i < 10; i++) decisions.push(await eventually(() => limiter.consume(key, 10)));
    expect(decisions.map((d) => d.allowed)).toEqual([...Array(9).fill(true), false]);
    expect(await admin.zCard(`rl:${key}`)).toBe(10);
  });

  it("never charges checks that timed out when a stall fills the client's command queue", async () => {
    const port = await findFreePort();
    const server = await startServer(port);
    const limiter = createRedisRateLimiter({ url: server.url, keyPrefix: "rl:", timeoutMs: 100, maxPendingCommands: 100 });
    cleanups.push(() => limiter.close());
    await limiter.ready();
    const key = randomUUID();
    expect((await eventually(() => limiter.consume(key, 1_000))).remaining).toBe(999);

    server.freeze();
    // More checks than the queue holds, and readiness probes among them: each check sent must
    // still find room for its removal.
    const probes = Array.from({ length: 40 }, () => limiter.checkHealth().catch(() => undefined));
    const stalled = await Promise.allSettled(Array.from({ length: 150 }, () => limiter.consume(key, 1_000)));
    expect(stalled.every((outcome) => outcome.status === "rejected")).toBe(true);
    // A second wave, once the first one's checks have timed out but not yet been answered.
    const again = await Promise.allSettled(Array.from({ length: 150 }, () => limiter.consume(key, 1_000)));
    expect(again.every((outcome) => outcome.status === "rejected")).toBe(true);
    await Promise.all(probes);
    server.thaw();

    const admin = createClient({ url: server.url });
    cleanups.push(async () => admin.destroy());
    await admin.connect();
    await eventually(async () => {
      if (String(await admin.sendCommand(["PING"])) !== "PONG") throw new Error("not yet");
    });
    expect((await eventually(() => limiter.consume(key, 1_000))).remaining).toBe(998);
    expect(await admin.zCard(`rl:${key}`)).toBe(2);
  });

  /** A limiter on a fake clock, connected to a Redis that has just stopped (on `port`). */
  async function limiterWhoseRedisStopped() {
    const port = await findFreePort();
    const server = await startServer(port);
    const clock = createFakeClock();
    const limiter = createRedisRateLimiter({ url: server.url, keyPrefix: "rl:", timeoutMs: 1_000, clock });
    cleanups.push(() => limiter.close());
    await limiter.ready();
    await server.stop();
    return { port, clock, limiter };
  }

  it("asks for a longer Retry-After the longer Redis has been failing, and starts over once it is back", async () => {
    const { port, clock, limiter } = await limiterWhoseRedisStopped();
    const retryAfter = async () => ((await limiter.consume(randomUUID(), 10).catch((e: unknown) => e)) as RateLimiterUnavailableError).retryAfterMs;
    expect(await retryAfter()).toBe(1_000);
    clock.advance(4_000);
    expect(await retryAfter()).toBe(1_000);
    clock.advance(16_000);
    expect(await retryAfter()).toBe(4_000);
    clock.advance(10 * 60_000);
    expect(await retryAfter()).toBe(30_000);

    const restarted = await startServer(port);
    await eventually(() => limiter.consume(randomUUID(), 10));
    await restarted.stop();
    expect(await retryAfter()).toBe(1_000);
  });

  // Found by an audit (session 51): the outage was timed from this replica's first refused call, so
  // the first caller 20 s into an outage was told to retry in 1 s.
  it("times an outage from when the connection failed, not from the first refused call", async () => {
    const { clock, limiter } = await limiterWhoseRedisStopped();
    // The client reports the lost connection, and its failed reconnects, on its own.
    await new Promise((resolve) => setTimeout(resolve, 500));
    clock.advance(20_000);
    const refusal = (await limiter.consume(randomUUID(), 10).catch((e: unknown) => e)) as RateLimiterUnavailableError;
    expect(refusal.retryAfterMs).toBe(4_000);
  });
});
