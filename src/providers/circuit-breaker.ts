export type CircuitState = "closed" | "open" | "half_open";

interface CircuitBreakerOptions {
  /** Consecutive failed attempts that open the circuit. */
  failureThreshold: number;
  /** How long the circuit stays open before one trial request is let through. */
  cooldownMs: number;
  /** Injected clock, so tests need no sleeps. */
  now?: () => number;
}

type Permit = { allowed: true } | { allowed: false; retryAfterMs: number };

interface CircuitBreaker {
  state(): CircuitState;
  /** Asks to send one attempt; in half-open state only one trial is out at a time. */
  tryAcquire(): Permit;
  onSuccess(): void;
  onFailure(): void;
  /** Gives back a permit whose attempt neither succeeded nor failed (e.g. the caller cancelled). */
  release(): void;
}

/**
 * Stops calling a provider that keeps failing: after `failureThreshold` consecutive failures the
 * circuit opens and calls fail fast for `cooldownMs`; then one trial goes through, and its outcome
 * closes the circuit again or reopens it for another cooldown.
 */
export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  // Monotonic: on the wall clock a step back of an hour kept the circuit open an hour, and callers
  // were told Retry-After: 3605 (audit, session 52).
  const now = options.now ?? (() => performance.now());
  let failures = 0;
  let openedAt: number | undefined;
  let trialInFlight = false;

  const state = (): CircuitState => {
    if (openedAt === undefined) return "closed";
    return now() - openedAt >= options.cooldownMs ? "half_open" : "open";
  };

  return {
    state,
    tryAcquire() {
      const current = state();
      if (current === "closed") return { allowed: true };
      if (current === "half_open" && !trialInFlight) {
        trialInFlight = true;
        return { allowed: true };
      }
      const retryAfterMs = current === "open" ? options.cooldownMs - (now() - (openedAt ?? now())) : options.cooldownMs;
      return { allowed: false, retryAfterMs: Math.max(1, retryAfterMs) };
    },
    onSuccess() {
      failures = 0;
      openedAt = undefined;
      trialInFlight = false;
    },
    onFailure() {
      failures++;
      if (trialInFlight || failures >= options.failureThreshold) openedAt = now();
      trialInFlight = false;
    },
    release() {
      trialInFlight = false;
    },
  };
}
