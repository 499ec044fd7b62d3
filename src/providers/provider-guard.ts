import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "../errors/api-error.js";
import { createCircuitBreaker, type CircuitState } from "./circuit-breaker.js";
import { createConcurrencyLimiter, LimiterFullError } from "./concurrency-limiter.js";
import { laneOf } from "../threads/caller-lane.js";
import { startDeadline } from "./deadline.js";
import { ProviderError } from "./provider-error.js";

/** Seconds a caller is told to wait after the retries failed, where the provider said nothing. */
const GAVE_UP_RETRY_AFTER = "2";

export interface GuardOptions {
  /** Limit on one HTTP attempt. */
  attemptTimeoutMs: number;
  /** Limit on the whole call: queueing, every attempt and the waits between them. */
  totalTimeoutMs: number;
  /** Extra attempts after a retryable failure (timeout, network, 408/409/429/5xx, malformed answer). */
  maxRetries: number;
  /** Exponential backoff with full jitter: attempt n waits random(0, min(max, base·2ⁿ)). */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Requests in flight to the provider at once, and callers allowed to wait for a slot. */
  maxConcurrency: number;
  maxQueue: number;
  /** Consecutive failed attempts that open the circuit, and how long it stays open. */
  failureThreshold: number;
  cooldownMs: number;
  now?: () => number;
  random?: () => number;
}

export const DEFAULT_GUARD_OPTIONS: GuardOptions = {
  attemptTimeoutMs: 20_000,
  totalTimeoutMs: 45_000,
  maxRetries: 2,
  backoffBaseMs: 250,
  backoffMaxMs: 4_000,
  maxConcurrency: 4,
  maxQueue: 32,
  failureThreshold: 5,
  cooldownMs: 30_000,
};

/** How one provider's refusals read: each provider answers with its own error code and words. */
export interface GuardWording {
  /** The error for a call that failed; `why` is one of the phrases below or `describe`'s. */
  unavailable(why: string, cause: unknown): ApiError;
  circuitOpen(retryAfterSeconds: number): ApiError;
  atCapacity(cause: unknown): ApiError;
  cancelled: string;
  timedOut: string;
  /** Message of the ProviderError that stands for an unexpected throw of the provider's client. */
  clientFailed: string;
  describe(failure: ProviderError): string;
}

export interface ProviderGuard {
  /** Runs `call` with every defence; throws only the wording's ApiErrors, the ProviderError as their cause. */
  run<T>(call: (signal: AbortSignal) => Promise<T>, caller?: AbortSignal): Promise<T>;
  circuitState(): CircuitState;
  /** Calls holding a provider slot, and calls waiting for one. */
  load(): { active: number; waiting: number };
}

/**
 * The defences every third-party provider call gets (vision and text alike): a time limit per
 * attempt and per call on plain cleared timers, bounded retries with jittered backoff (honouring
 * Retry-After up to the backoff cap), at most `maxConcurrency` calls in flight and `maxQueue`
 * waiting, and a circuit that fails fast after `failureThreshold` consecutive failures.
 */
export function createProviderGuard(config: GuardOptions, wording: GuardWording): ProviderGuard {
  const random = config.random ?? Math.random;
  const breaker = createCircuitBreaker({ failureThreshold: config.failureThreshold, cooldownMs: config.cooldownMs, ...(config.now ? { now: config.now } : {}) });
  const limiter = createConcurrencyLimiter({ max: config.maxConcurrency, maxQueue: config.maxQueue });
  const circuitOpen = (retryAfterMs: number) => wording.circuitOpen(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  /** The last failure's refusal, with the provider's own Retry-After passed on: it knows when it takes calls again. */
  const gaveUp = (failure: ProviderError): ApiError => {
    const error = wording.unavailable(wording.describe(failure), failure);
    if (failure.retryAfterMs !== undefined) error.headers["retry-after"] ??= String(Math.max(1, Math.ceil(failure.retryAfterMs / 1000)));
    // Else a short one, like every 503 (it had none: found by an audit, session 52): the calls
    // were retried already, and the circuit may open next.
    error.headers["retry-after"] ??= GAVE_UP_RETRY_AFTER;
    return error;
  };

  const attempt = async <T>(call: (signal: AbortSignal) => Promise<T>, deadline: AbortSignal, caller: AbortSignal | undefined): Promise<T> => {
    for (let n = 0; ; n++) {
      const permit = breaker.tryAcquire();
      if (!permit.allowed) throw circuitOpen(permit.retryAfterMs);
      const attemptLimit = startDeadline(config.attemptTimeoutMs, deadline);
      let failure: ProviderError;
      try {
        const result = await call(attemptLimit.signal);
        breaker.onSuccess();
        return result;
      } catch (error) {
        if (caller?.aborted) {
          breaker.release(); // the caller left; says nothing about the provider
          throw wording.unavailable(wording.cancelled, error);
        }
        // Cut by the call's total limit, which counts the time spent queued for a slot, before the
        // try's own limit: a burst against a slow but healthy provider ran out of our budget, not
        // the provider's, and opened the circuit for every caller. Says nothing about the provider.
        if (deadline.aborted && attemptLimit.signal.reason === deadline.reason) {
          breaker.release();
          throw wording.unavailable(wording.timedOut, error);
        }
        // A provider that answered (a refusal, a verdict that does not parse) is up: the input
        // decided it. One tenant's refused images opened the circuit for every tenant, and prose
        // answers (retried) did so in two calls (found by an audit).
        // A status that refuses the input (400, 413, 422: read-response.ts) says nothing either
        // way: counted as a success, it reset the streak of a provider failing most other calls.
        if (error instanceof ProviderError && error.answered) {
          if (error.kind === "http") breaker.release();
          else breaker.onSuccess();
        } else breaker.onFailure();
        failure = error instanceof ProviderError ? error : new ProviderError("malformed", wording.clientFailed, { retryable: false, cause: error });
      } finally {
        attemptLimit.clear();
      }
      if (deadline.aborted) throw wording.unavailable(wording.timedOut, failure);
      if (!failure.retryable || n >= config.maxRetries) throw gaveUp(failure);
      const wait = Math.max(random() * Math.min(config.backoffMaxMs, config.backoffBaseMs * 2 ** n), failure.retryAfterMs ?? 0);
      // A Retry-After longer than our budget means the answer would come too late anyway.
      if (wait > config.backoffMaxMs) throw gaveUp(failure);
      try {
        await sleep(wait, undefined, { signal: deadline });
      } catch {
        throw wording.unavailable(wording.timedOut, failure);
      }
    }
  };

  return {
    circuitState: () => breaker.state(),
    load: () => ({ active: limiter.active, waiting: limiter.waiting }),
    async run(call, caller) {
      // Fail fast without queueing while the circuit is open.
      if (breaker.state() === "open") {
        const permit = breaker.tryAcquire();
        if (!permit.allowed) throw circuitOpen(permit.retryAfterMs);
        breaker.release();
      }
      const total = startDeadline(config.totalTimeoutMs, caller);
      try {
        return await limiter.run(() => attempt(call, total.signal, caller), total.signal, laneOf(caller));
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (error instanceof LimiterFullError) throw wording.atCapacity(error);
        // Aborted while waiting for a slot.
        throw wording.unavailable(caller?.aborted ? wording.cancelled : wording.timedOut, error);
      } finally {
        total.clear();
      }
    },
  };
}
