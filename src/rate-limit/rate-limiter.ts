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

export interface ConsumeOptions {
  /** The rolling window for this key; defaults to the limiter's (one minute). Use one window per key. */
  windowMs?: number;
  /**
   * Only look, recording nothing: whether a consume now would be allowed, with `remaining` counting
   * what is recorded (not this call, so one more than a consume would report). Log-in throttles
   * check first and count failures later.
   */
  dryRun?: boolean;
}

/**
 * Counts requests per key (an account id) over a rolling window. One call both checks and records,
 * atomically: there is no separate "count it later" step that concurrent replicas could race past.
 * Denied requests are not recorded, so a client hammering past its limit gets back in as soon as its
 * oldest allowed request ages out. A call that rejects (the store did not answer in time) is not
 * recorded either, not even when the store catches up later: a refusal is never charged.
 */
export interface RateLimiter {
  consume(key: string, limit: number, options?: ConsumeOptions): Promise<RateLimitDecision>;
  /**
   * The decision at once, for a limiter that needs no I/O (in memory): callers skip a promise turn
   * per request. Absent for stores that must be asked (Redis).
   */
  consumeNow?(key: string, limit: number, options?: ConsumeOptions): RateLimitDecision;
  /** Resolves when the store answers (for /readyz); rejects with RateLimiterUnavailableError otherwise. */
  checkHealth(): Promise<void>;
  close(): Promise<void>;
}

/** The store could not answer (down, slow, or erroring); callers apply the configured failure mode. */
export class RateLimiterUnavailableError extends Error {
  /** A sensible wait before retrying: grows with how long the store has been failing (1 s to 30 s; see outageRetryAfterMs). */
  readonly retryAfterMs: number;
  constructor(message: string, options?: { cause?: unknown; retryAfterMs?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "RateLimiterUnavailableError";
    this.retryAfterMs = options?.retryAfterMs ?? 1_000;
  }
}

/**
 * Retry-After for a store outage: 1 s through a short blip (the first 5 s), then a fifth of the
 * outage so far, up to 30 s, so a long outage is not met by every client retrying every second.
 */
export function outageRetryAfterMs(outageMs: number): number {
  if (outageMs < 5_000) return 1_000;
  return Math.min(30_000, Math.ceil(outageMs / 5_000) * 1_000);
}

export function assertValidLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`rate limit must be a positive integer, got ${limit}`);
  }
}
