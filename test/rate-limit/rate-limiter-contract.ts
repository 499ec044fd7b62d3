import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { RateLimiter } from "../../src/rate-limit/rate-limiter.js";
import { createFakeClock, type FakeClock } from "./fake-clock.js";

const MINUTE = 60_000;

/**
 * The behaviour every RateLimiter store must have. The memory and Redis stores both run it, with a
 * fake clock, so they cannot drift apart.
 */
export function describeRateLimiterContract(name: string, createLimiter: (clock: FakeClock) => Promise<RateLimiter>): void {
  describe(`RateLimiter contract: ${name}`, () => {
    const open: RateLimiter[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((limiter) => limiter.close()));
    });

    async function setup(): Promise<{ limiter: RateLimiter; clock: FakeClock; key: string }> {
      const clock = createFakeClock();
      const limiter = await createLimiter(clock);
      open.push(limiter);
      return { limiter, clock, key: `account-${randomUUID()}` };
    }

    async function consumeMany(limiter: RateLimiter, key: string, limit: number, times: number) {
      const decisions = [];
      for (let i = 0; i < times; i++) decisions.push(await limiter.consume(key, limit));
      return decisions;
    }

    it("allows exactly the limit in a minute: the 11th request at 10/min is denied", async () => {
      const { limiter, key } = await setup();
      const decisions = await consumeMany(limiter, key, 10, 11);
      expect(decisions.map((d) => d.allowed)).toEqual([...Array(10).fill(true), false]);
      expect(decisions.map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
      expect(decisions.every((d) => d.limit === 10 && d.windowMs === MINUTE)).toBe(true);
    });

    it("holds each plan's number exactly", async () => {
      const { limiter } = await setup();
      for (const limit of [10, 60, 300, 1234]) {
        const key = `account-${randomUUID()}`;
        const decisions = await consumeMany(limiter, key, limit, limit + 1);
        expect(decisions.filter((d) => d.allowed)).toHaveLength(limit);
        expect(decisions.at(-1)?.allowed).toBe(false);
      }
    });

    it("reports the time until the oldest counted request leaves the window", async () => {
      const { limiter, clock, key } = await setup();
      expect((await limiter.consume(key, 10)).resetMs).toBe(MINUTE);
      clock.advance(15_000);
      expect((await limiter.consume(key, 10)).resetMs).toBe(45_000);
    });

    it("denies until the exact millisecond the oldest request expires", async () => {
      const { limiter, clock, key } = await setup();
      await consumeMany(limiter, key, 10, 10);
      clock.advance(MINUTE - 1);
      const denied = await limiter.consume(key, 10);
      expect(denied).toMatchObject({ allowed: false, remaining: 0, resetMs: 1 });
      clock.advance(1);
      // All ten were at the same instant, so the whole budget comes back together.
      expect(await limiter.consume(key, 10)).toMatchObject({ allowed: true, remaining: 9 });
    });

    it("does not let a burst at a window edge through at twice the plan", async () => {
      const { limiter, clock, key } = await setup();
      // A fixed-window counter would reset at the minute boundary 200 ms later and allow 10 more.
      clock.advance(MINUTE - 100);
      expect((await consumeMany(limiter, key, 10, 10)).every((d) => d.allowed)).toBe(true);
      clock.advance(200);
      const after = await consumeMany(limiter, key, 10, 10);
      expect(after.some((d) => d.allowed)).toBe(false);
      expect(after[0]?.resetMs).toBe(MINUTE - 200);
    });

    it("slides: budget comes back as old requests age out, not all at once", async () => {
      const { limiter, clock, key } = await setup();
      await consumeMany(limiter, key, 10, 5);
      clock.advance(30_000);
      await consumeMany(limiter, key, 10, 5);
      clock.advance(30_000);
      const decisions = await consumeMany(limiter, key, 10, 6);
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
      expect(decisions.at(-1)?.resetMs).toBe(30_000);
    });

    it("does not count denied requests", async () => {
      const { limiter, clock, key } = await setup();
      await consumeMany(limiter, key, 10, 10);
      clock.advance(30_000);
      await consumeMany(limiter, key, 10, 50);
      clock.advance(30_000);
      expect((await consumeMany(limiter, key, 10, 10)).every((d) => d.allowed)).toBe(true);
    });

    it("keeps accounts apart", async () => {
      const { limiter, key } = await setup();
      await consumeMany(limiter, key, 10, 10);
      expect((await limiter.consume(key, 10)).allowed).toBe(false);
      expect((await limiter.consume(`${key}-other`, 10)).allowed).toBe(true);
    });

    it("applies a new limit on the next request (plan upgrade)", async () => {
      const { limiter, key } = await setup();
      await consumeMany(limiter, key, 10, 10);
      expect((await limiter.consume(key, 10)).allowed).toBe(false);
      expect(await limiter.consume(key, 60)).toMatchObject({ allowed: true, limit: 60, remaining: 49 });
    });

    it("applies a lower limit at once and waits for enough requests to expire (plan downgrade)", async () => {
      const { limiter, clock, key } = await setup();
      for (let i = 0; i < 30; i++) {
        await limiter.consume(key, 60);
        clock.advance(1_000);
      }
      // Now t=30 s with requests at 0..29 s: 30 counted, limit 10, so the 21st (at 20 s) must expire.
      const denied = await limiter.consume(key, 10);
      expect(denied).toMatchObject({ allowed: false, limit: 10, remaining: 0, resetMs: 50_000 });
    });

    it("takes a window per call: 3 per 15 minutes holds for the whole 15 minutes", async () => {
      const { limiter, clock, key } = await setup();
      const window = 15 * MINUTE;
      for (let i = 0; i < 3; i++) expect((await limiter.consume(key, 3, { windowMs: window })).allowed).toBe(true);
      clock.advance(10 * MINUTE);
      expect(await limiter.consume(key, 3, { windowMs: window })).toMatchObject({ allowed: false, resetMs: 5 * MINUTE, windowMs: window });
      clock.advance(5 * MINUTE);
      expect((await limiter.consume(key, 3, { windowMs: window })).allowed).toBe(true);
    });

    it("a dry run tells the decision and records nothing", async () => {
      const { limiter, key } = await setup();
      await consumeMany(limiter, key, 3, 2);
      for (let i = 0; i < 5; i++) expect(await limiter.consume(key, 3, { dryRun: true })).toMatchObject({ allowed: true, remaining: 1 });
      expect((await limiter.consume(key, 3)).allowed).toBe(true);
      expect(await limiter.consume(key, 3, { dryRun: true })).toMatchObject({ allowed: false, remaining: 0 });
    });

    it("lets exactly the limit through under concurrency", async () => {
      const { limiter, key } = await setup();
      const decisions = await Promise.all(Array.from({ length: 100 }, () => limiter.consume(key, 10)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    });

    it("rejects a limit that is not a positive integer", async () => {
      const { limiter, key } = await setup();
      await expect(limiter.consume(key, 0)).rejects.toThrow(RangeError);
      await expect(limiter.consume(key, 1.5)).rejects.toThrow(RangeError);
    });
  });
}
