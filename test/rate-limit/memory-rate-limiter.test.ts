import { describe, expect, it, vi } from "vitest";
import { createMemoryRateLimiter } from "../../src/rate-limit/memory-rate-limiter.js";
import { createFakeClock } from "./fake-clock.js";
import { describeRateLimiterContract } from "./rate-limiter-contract.js";

describeRateLimiterContract("memory", async (clock) => createMemoryRateLimiter({ clock }));

describe("memory rate limiter", () => {
  it("keeps the log sorted when the clock steps back", async () => {
    const clock = createFakeClock();
    const limiter = createMemoryRateLimiter({ clock });
    clock.advance(10_000);
    await limiter.consume("a", 3);
    clock.advance(-5_000);
    await limiter.consume("a", 3);
    // The entry at 5 s is the oldest, so the next slot frees 60 s from now, not 65 s.
    expect((await limiter.consume("a", 3)).resetMs).toBe(60_000);
  });

  it("answers at once through consumeNow, sharing its budget with consume", async () => {
    const clock = createFakeClock();
    const limiter = createMemoryRateLimiter({ clock });
    expect(limiter.consumeNow("a", 2)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.consume("a", 2)).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.consumeNow("a", 2)).toMatchObject({ allowed: false, remaining: 0 });
  });
});

describe("memory rate limiter's memory", () => {
  // Found by an audit (session 51): expired entries were dropped only past 1,024 of them, so a Free
  // account at its limit for hours held about 1,035 timestamps for its 10 live ones.
  it("holds about twice an account's live entries, however long it stays at its limit", () => {
    const clock = createFakeClock();
    const limiter = createMemoryRateLimiter({ clock });
    let most = 0;
    for (let minute = 0; minute < 200; minute++) {
      for (let i = 0; i < 10; i++) {
        expect(limiter.consumeNow("busy", 10).allowed).toBe(true);
        clock.advance(6_000);
      }
      most = Math.max(most, limiter.entriesHeld("busy"));
    }
    expect(most).toBeLessThanOrEqual(2 * 10 + 16);
  });
});

describe("memory rate limiter on its own clock", () => {
  it("is not moved by the wall clock: a step back of 10 minutes does not hold an account for 11", async () => {
    vi.useFakeTimers({ toFake: ["Date", "performance"] });
    try {
      const limiter = createMemoryRateLimiter();
      for (let i = 0; i < 10; i++) expect(limiter.consumeNow("acct", 10).allowed).toBe(true);
      expect(limiter.consumeNow("acct", 10).allowed).toBe(false);
      vi.setSystemTime(Date.now() - 600_000); // the wall clock steps back; time itself goes on
      vi.advanceTimersByTime(61_000);
      expect(limiter.consumeNow("acct", 10)).toMatchObject({ allowed: true, remaining: 9 });
    } finally {
      vi.useRealTimers();
    }
  });
});
