/** Plans are "requests per minute", so every limiter counts over one rolling minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Milliseconds since the epoch. Injected so tests can walk across window edges without sleeping. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** The outcome of one request against an account's budget. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Requests allowed in any rolling window. */
  limit: number;
  /** Requests still allowed right now (0 when denied). */
  remaining: number;
  /**
   * Milliseconds until the next unit of budget comes back: for an allowed request, until the oldest
   * counted request leaves the window; for a denied one, until a request would be allowed again.
   */
  resetMs: number;
  windowMs: number;
}

/**
 * Counts requests per key (an account id) over a rolling window. One call both checks and records,
 * atomically: there is no separate "count it later" step that concurrent replicas could race past.
 * Denied requests are not recorded, so a client hammering past its limit gets back in as soon as its
 * oldest allowed request ages out.
 */
export interface RateLimiter {
  consume(key: string, limit: number): Promise<RateLimitDecision>;
  /**
   * The decision at once, for a limiter that needs no I/O (in memory): callers skip a promise turn
   * per request. Absent for stores that must be asked (Redis).
   */
  consumeNow?(key: string, limit: number): RateLimitDecision;
  /** Resolves when the store answers (for /readyz); rejects with RateLimiterUnavailableError otherwise. */
  checkHealth(): Promise<void>;
  close(): Promise<void>;
}

/** The store could not answer (down, slow, or erroring); callers apply the configured failure mode. */
export class RateLimiterUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RateLimiterUnavailableError";
  }
}

export function assertValidLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`rate limit must be a positive integer, got ${limit}`);
  }
}
