import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "../errors/api-error.js";
import { createCircuitBreaker, type CircuitState } from "./circuit-breaker.js";
import { createConcurrencyLimiter, LimiterFullError } from "./concurrency-limiter.js";
import { startDeadline } from "./deadline.js";
import type { DeepAnalysisRequest, DeepAnalysisResult, DeepAnalyzer } from "./deep-analyzer.js";
import { ProviderError } from "./provider-error.js";

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

interface GuardedAnalyzer extends DeepAnalyzer {
  /** Throws ApiError("deep_analysis_unavailable") on every failure; the ProviderError is its cause. */
  analyze(request: DeepAnalysisRequest): Promise<DeepAnalysisResult>;
  circuitState(): CircuitState;
  /** Calls holding a provider slot, and calls waiting for one. */
  load(): { active: number; waiting: number };
}

/** Wraps any DeepAnalyzer with the defences a third-party dependency needs. */
export function createGuardedAnalyzer(inner: DeepAnalyzer, options: Partial<GuardOptions> = {}): GuardedAnalyzer {
  const config = { ...DEFAULT_GUARD_OPTIONS, ...options };
  const random = config.random ?? Math.random;
  const breaker = createCircuitBreaker({
    failureThreshold: config.failureThreshold,
    cooldownMs: config.cooldownMs,
    ...(config.now ? { now: config.now } : {}),
  });
  const limiter = createConcurrencyLimiter({ max: config.maxConcurrency, maxQueue: config.maxQueue });

  const attempt = async (request: DeepAnalysisRequest, deadline: AbortSignal): Promise<DeepAnalysisResult> => {
    for (let n = 0; ; n++) {
      const permit = breaker.tryAcquire();
      if (!permit.allowed) throw circuitOpen(permit.retryAfterMs);
      const attemptLimit = startDeadline(config.attemptTimeoutMs, deadline);
      let failure: ProviderError;
      try {
        const result = await inner.analyze({ ...request, signal: attemptLimit.signal });
        breaker.onSuccess();
        return result;
      } catch (error) {
        if (request.signal?.aborted) {
          breaker.release(); // the caller left; says nothing about the provider
          throw unavailable("The deep analysis was cancelled.", error);
        }
        breaker.onFailure();
        failure =
          error instanceof ProviderError
            ? error
            : new ProviderError("malformed", "The vision provider client failed.", { retryable: false, cause: error });
      } finally {
        attemptLimit.clear();
      }
      if (deadline.aborted) throw unavailable("the vision provider did not answer in time", failure);
      if (!failure.retryable || n >= config.maxRetries) throw toApiError(failure);
      const backoff = random() * Math.min(config.backoffMaxMs, config.backoffBaseMs * 2 ** n);
      const wait = Math.max(backoff, failure.retryAfterMs ?? 0);
      // A Retry-After longer than our budget means the answer will come too late anyway.
      if (wait > config.backoffMaxMs) throw toApiError(failure);
      try {
        await sleep(wait, undefined, { signal: deadline });
      } catch {
        throw unavailable("the vision provider did not answer in time", failure);
      }
    }
  };

  return {
    provider: inner.provider,
    model: inner.model,
    circuitState: () => breaker.state(),
    load: () => ({ active: limiter.active, waiting: limiter.waiting }),
    async analyze(request) {
      // Fail fast without queueing while the circuit is open.
      if (breaker.state() === "open") {
        const permit = breaker.tryAcquire();
        if (!permit.allowed) throw circuitOpen(permit.retryAfterMs);
        breaker.release();
      }
      const total = startDeadline(config.totalTimeoutMs, request.signal);
      const deadline = total.signal;
      try {
        return await limiter.run(() => attempt(request, deadline), deadline);
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (error instanceof LimiterFullError) {
          throw new ApiError("deep_analysis_unavailable", "Deep image analysis is at capacity; retry shortly.", {
            cause: error,
            headers: { "retry-after": "1" },
          });
        }
        // Aborted while waiting for a slot.
        throw unavailable(request.signal?.aborted ? "The deep analysis was cancelled." : "the vision provider did not answer in time", error);
      } finally {
        total.clear();
      }
    },
  };
}

function toApiError(failure: ProviderError): ApiError {
  switch (failure.kind) {
    case "timeout":
      return unavailable("the vision provider did not answer in time", failure);
    case "malformed":
      return unavailable("the vision provider returned an invalid verdict", failure);
    case "refused":
      return unavailable("the vision model declined to judge the image", failure);
    default:
      return unavailable("the vision provider could not be reached or returned an error", failure);
  }
}

function unavailable(why: string, cause: unknown): ApiError {
  const message = why.endsWith(".") ? why : `Deep image analysis is unavailable: ${why}.`;
  return new ApiError("deep_analysis_unavailable", message, { cause });
}

function circuitOpen(retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError(
    "deep_analysis_unavailable",
    `Deep image analysis is temporarily unavailable: the vision provider has been failing. Retry after ${seconds} s.`,
    { headers: { "retry-after": String(seconds) } },
  );
}
