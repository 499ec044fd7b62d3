import type { Clock } from "../../src/rate-limit/rate-limiter.js";

export interface FakeClock extends Clock {
  advance(ms: number): void;
}

/** Starts at a fixed, round instant so window edges in tests are easy to read. */
export function createFakeClock(start = Date.UTC(2030, 0, 1)): FakeClock {
  let now = start;
  return {
    now: () => now,
    advance(ms) {
      now += ms;
    },
  };
}
