import {
  RATE_LIMIT_WINDOW_MS,
  assertValidLimit,
  systemClock,
  type Clock,
  type RateLimitDecision,
  type RateLimiter,
} from "./rate-limiter.js";

export interface MemoryRateLimiterOptions {
  clock?: Clock;
  windowMs?: number;
}

/** How many calls between sweeps of idle keys; bounds memory without a background timer. */
const SWEEP_EVERY = 1_000;

/**
 * Sliding window log kept in process memory: the same algorithm and contract as the Redis store,
 * for a single replica (REDIS_URL unset). Each replica has its own budget, so it is not for fleets.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): RateLimiter {
  const clock = options.clock ?? systemClock;
  const windowMs = options.windowMs ?? RATE_LIMIT_WINDOW_MS;
  // Timestamps per key, ascending.
  const logs = new Map<string, number[]>();
  let callsSinceSweep = 0;

  function sweep(now: number): void {
    for (const [key, log] of logs) {
      const newest = log[log.length - 1];
      if (newest === undefined || newest <= now - windowMs) logs.delete(key);
    }
  }

  return {
    async consume(key, limit) {
      assertValidLimit(limit);
      const now = clock.now();
      if (++callsSinceSweep >= SWEEP_EVERY) {
        callsSinceSweep = 0;
        sweep(now);
      }
      let log = logs.get(key);
      if (!log) {
        log = [];
        logs.set(key, log);
      }
      // An entry counts while now - t < windowMs, matching the Lua script's ZREMRANGEBYSCORE bound.
      const expired = countExpired(log, now - windowMs);
      if (expired > 0) log.splice(0, expired);

      const allowed = log.length < limit;
      if (allowed) insertSorted(log, now);
      const count = log.length;
      // Denied: wait until enough entries expire to bring the count under the limit.
      const pivot = allowed ? log[0] : log[count - limit];
      return decision(allowed, limit, count, pivot === undefined ? 0 : pivot + windowMs - now, windowMs);
    },
    async checkHealth() {},
    async close() {
      logs.clear();
    },
  };
}

function decision(allowed: boolean, limit: number, count: number, resetMs: number, windowMs: number): RateLimitDecision {
  return { allowed, limit, remaining: Math.max(0, limit - count), resetMs: Math.max(0, resetMs), windowMs };
}

/** Number of leading entries with t <= cutoff. */
function countExpired(log: number[], cutoff: number): number {
  let lo = 0;
  let hi = log.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((log[mid] ?? Infinity) <= cutoff) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Appends in the common case; a clock that stepped back still keeps the log sorted. */
function insertSorted(log: number[], t: number): void {
  const last = log[log.length - 1];
  if (last === undefined || last <= t) {
    log.push(t);
    return;
  }
  log.splice(countExpired(log, t), 0, t);
}
