import {
  RATE_LIMIT_WINDOW_MS,
  assertValidLimit,
  type Clock,
  type ConsumeOptions,
  type RateLimitDecision,
  type RateLimiter,
} from "./rate-limiter.js";

interface MemoryRateLimiterOptions {
  clock?: Clock;
  windowMs?: number;
}

/** How many calls between sweeps of idle keys; bounds memory without a background timer. */
const SWEEP_EVERY = 1_000;

/**
 * Milliseconds that only move forward (process start + time since, near the epoch's): a wall
 * clock stepped back 10 minutes (NTP, a VM resumed) left every request counted before the step in
 * the "future", so an account stayed refused for 11 minutes instead of one.
 */
const monotonicClock: Clock = { now: () => performance.timeOrigin + performance.now() };

/**
 * Sliding window log kept in process memory: the same algorithm and contract as the Redis store,
 * for a single replica (REDIS_URL unset). Each replica has its own budget, so it is not for fleets.
 */
export function createMemoryRateLimiter(
  options: MemoryRateLimiterOptions = {},
): RateLimiter & {
  consumeNow(key: string, limit: number, options?: ConsumeOptions): RateLimitDecision;
  /** Timestamps held for `key`, expired ones not yet dropped included (what its memory costs). */
  entriesHeld(key: string): number;
} {
  const clock = options.clock ?? monotonicClock;
  const windowMs = options.windowMs ?? RATE_LIMIT_WINDOW_MS;
  // Timestamps per key, ascending, from `start` on. Expired entries are skipped by moving
  // `start` and dropped in bulk now and then, so a large enterprise limit (a long log) costs
  // O(log n) per call instead of shifting the whole array every time.
  const logs = new Map<string, { times: number[]; start: number; windowMs: number }>();
  let callsSinceSweep = 0;

  function sweep(now: number): void {
    for (const [key, log] of logs) {
      const newest = log.times[log.times.length - 1];
      if (newest === undefined || newest <= now - log.windowMs) logs.delete(key);
    }
  }

  function consumeNow(key: string, limit: number, consumeOptions: ConsumeOptions = {}): RateLimitDecision {
    assertValidLimit(limit);
    const window = consumeOptions.windowMs ?? windowMs;
    const now = clock.now();
    if (++callsSinceSweep >= SWEEP_EVERY) {
      callsSinceSweep = 0;
      sweep(now);
    }
    let log = logs.get(key);
    if (!log) {
      log = { times: [], start: 0, windowMs: window };
      logs.set(key, log);
    }
    log.windowMs = window;
    log.start = countExpired(log.times, now - window, log.start);
    // Dropped once the expired prefix is half the array: each entry is copied about once, and a
    // busy account holds at most twice its live entries (trimmed only past 1,024 expired entries,
    // a Free account at its limit held about 1,035 numbers for its 10; found by an audit).
    if (log.start >= 16 && log.start * 2 >= log.times.length) {
      log.times = log.times.slice(log.start);
      log.start = 0;
    }

    const allowed = log.times.length - log.start < limit;
    if (allowed && !consumeOptions.dryRun) insertSorted(log.times, now, log.start);
    const count = log.times.length - log.start;
    const pivot = allowed ? log.times[log.start] : log.times[log.start + count - limit];
    return decision(allowed, limit, count, pivot === undefined ? 0 : pivot + window - now, window);
  }

  return {
    consumeNow,
    entriesHeld: (key) => logs.get(key)?.times.length ?? 0,
    async consume(key, limit, consumeOptions) {
      return consumeNow(key, limit, consumeOptions);
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
/** Index of the first entry after `cutoff`, searching from `from` on. */
function countExpired(log: number[], cutoff: number, from = 0): number {
  let lo = from;
  let hi = log.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((log[mid] ?? Infinity) <= cutoff) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Appends in the common case; a clock that stepped back still keeps the log sorted. */
function insertSorted(log: number[], t: number, from: number): void {
  const last = log[log.length - 1];
  if (last === undefined || last <= t) {
    log.push(t);
    return;
  }
  log.splice(countExpired(log, t, from), 0, t);
}
