import { randomUUID } from "node:crypto";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createClient } from "redis";
import type { RateLimiter } from "../../src/rate-limit/rate-limiter.js";
import { createRedisRateLimiter } from "../../src/rate-limit/redis-rate-limiter.js";
import { describeRateLimiterContract } from "./rate-limiter-contract.js";
import { SHARED_REDIS_URL, deleteKeys, uniqueKeyPrefix } from "./redis-test-support.js";

const keyPrefix = uniqueKeyPrefix("redis");

afterAll(async () => {
  await deleteKeys(SHARED_REDIS_URL, keyPrefix);
});

describeRateLimiterContract("redis", async (clock) => {
  const limiter = createRedisRateLimiter({ url: SHARED_REDIS_URL, keyPrefix, timeoutMs: 2_000, clock });
  await limiter.ready();
  return limiter;
});

describe("redis rate limiter", () => {
  const open: RateLimiter[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((limiter) => limiter.close()));
  });

  async function replica(): Promise<RateLimiter> {
    // No clock: the script reads Redis's TIME, as in production.
    const limiter = createRedisRateLimiter({ url: SHARED_REDIS_URL, keyPrefix, timeoutMs: 2_000 });
    open.push(limiter);
    await limiter.ready();
    return limiter;
  }

  it("uses the Redis server's clock when none is given", async () => {
    const limiter = await replica();
    const key = randomUUID();
    const decisions = [];
    for (let i = 0; i < 11; i++) decisions.push(await limiter.consume(key, 10));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    const denied = decisions.at(-1);
    expect(denied?.allowed).toBe(false);
    expect(denied?.resetMs).toBeGreaterThan(0);
    expect(denied?.resetMs).toBeLessThanOrEqual(60_000);
  });

  it("is exact across replicas with their own connections", async () => {
    const replicas = await Promise.all([replica(), replica(), replica()]);
    const key = randomUUID();
    const decisions = await Promise.all(
      Array.from({ length: 300 }, (_, i) => replicas[i % replicas.length]!.consume(key, 10)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
  });

  it("keeps one expiring key per account, so a cluster puts the whole decision in one slot", async () => {
    const limiter = await replica();
    const key = randomUUID();
    await limiter.consume(key, 10);
    await limiter.consume(key, 10);
    const client = createClient({ url: SHARED_REDIS_URL });
    await client.connect();
    try {
      const keys = [];
      for await (const batch of client.scanIterator({ MATCH: `${keyPrefix}*${key}*` })) keys.push(...batch);
      expect(keys).toEqual([`${keyPrefix}${key}`]);
      expect(await client.type(`${keyPrefix}${key}`)).toBe("zset");
      expect(await client.zCard(`${keyPrefix}${key}`)).toBe(2);
      const ttl = await client.pTTL(`${keyPrefix}${key}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      client.destroy();
    }
  });
});
