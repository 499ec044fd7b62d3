import { setTimeout as sleep } from "node:timers/promises";
import type { Verdict } from "../../classifiers/classifier.js";
import { ApiError } from "../../errors/api-error.js";
import { createCircuitBreaker, type CircuitState } from "../circuit-breaker.js";
import { createConcurrencyLimiter, LimiterFullError } from "../concurrency-limiter.js";
import { startDeadline } from "../deadline.js";
import { DEFAULT_GUARD_OPTIONS, type GuardOptions } from "../guarded-analyzer.js";
import { ProviderError } from "../provider-error.js";
import type { TextProvider } from "./text-provider.js";

export interface GuardedTextProvider extends TextProvider {
  /** Throws ApiError("provider_unavailable") on every failure; the ProviderError is its cause. */
  classify(text: string, signal?: AbortSignal): Promise<Verdict>;
  circuitState(): CircuitState;
}

/** The vision provider's defaults, but a text verdict is wanted sooner. */
const DEFAULT_TEXT_GUARD_OPTIONS: GuardOptions = { ...DEFAULT_GUARD_OPTIONS, attemptTimeoutMs: 10_000, totalTimeoutMs: 20_000, maxConcurrency: 8, maxQueue: 64 };

/**
 * Wraps a text provider with the defences the vision provider has (the same circuit breaker,
 * concurrency limiter and plain-timer deadlines): a time limit per attempt and per call, bounded
 * retries with jittered backoff (honouring Retry-After up to the backoff cap), at most
 * `maxConcurrency` items in flight and `maxQueue` waiting, and a circuit that fails fast after
 * `failureThreshold` consecutive failures.
 */
export function createGuardedTextProvider(inner: TextProvider, options: Partial<GuardOptions> = {}): GuardedTextProvider {
  const config = { ...DEFAULT_TEXT_GUARD_OPTIONS, ...options };
  const random = config.random ?? Math.random;
  const breaker = createCircuitBreaker({ failureThreshold: config.failureThreshold, cooldownMs: config.cooldownMs, ...(config.now ? { now: config.now } : {}) });
  const limiter = createConcurrencyLimiter({ max: config.maxConcurrency, maxQueue: config.maxQueue });

  const attempt = async (text: string, deadline: AbortSignal, caller: AbortSignal | undefined): Promise<Verdict> => {
    for (let n = 0; ; n++) {
      const permit = breaker.tryAcquire();
      if (!permit.allowed) throw circuitOpen(permit.retryAfterMs);
      const attemptLimit = startDeadline(config.attemptTimeoutMs, deadline);
      let failure: ProviderError;
      try {
        const verdict = await inner.classify(text, attemptLimit.signal);
        breaker.onSuccess();
        return verdict;
      } catch (error) {
        if (caller?.aborted) {
          breaker.release(); // the caller left; says nothing about the provider
          throw unavailable("the call was cancelled", error);
        }
        breaker.onFailure();
        failure = error instanceof ProviderError ? error : new ProviderError("malformed", "The text provider client failed.", { retryable: false, cause: error });
      } finally {
        attemptLimit.clear();
      }
      if (deadline.aborted) throw unavailable("it did not answer in time", failure);
      if (!failure.retryable || n >= config.maxRetries) throw unavailable(describe(failure), failure);
      const wait = Math.max(random() * Math.min(config.backoffMaxMs, config.backoffBaseMs * 2 ** n), failure.retryAfterMs ?? 0);
      // A Retry-After longer than our budget means the answer would come too late anyway.
      if (wait > config.backoffMaxMs) throw unavailable(describe(failure), failure);
      try {
        await sleep(wait, undefined, { signal: deadline });
      } catch {
        throw unavailable("it did not answer in time", failure);
      }
    }
  };

  return {
    kind: inner.kind,
    id: inner.id,
    judges: inner.judges,
    circuitState: () => breaker.state(),
    async classify(text, signal) {
      // Fail fast without queueing while the circuit is open.
      if (breaker.state() === "open") {
        const permit = breaker.tryAcquire();
        if (!permit.allowed) throw circuitOpen(permit.retryAfterMs);
        breaker.release();
      }
      const total = startDeadline(config.totalTimeoutMs, signal);
      try {
        return await limiter.run(() => attempt(text, total.signal, signal), total.signal);
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (error instanceof LimiterFullError) {
          throw new ApiError("provider_unavailable", "The text provider is at capacity; retry shortly.", { cause: error, headers: { "retry-after": "1" } });
        }
        throw unavailable(signal?.aborted ? "the call was cancelled" : "it did not answer in time", error);
      } finally {
        total.clear();
      }
    },
  };
}

function describe(failure: ProviderError): string {
  switch (failure.kind) {
    case "timeout":
      return "it did not answer in time";
    case "malformed":
      return "it returned an answer that is not a valid verdict";
    case "refused":
      return "the model declined to judge the text";
    default:
      return "it could not be reached or returned an error";
  }
}

function unavailable(why: string, cause: unknown): ApiError {
  return new ApiError("provider_unavailable", `The text guard-model provider is unavailable: ${why}.`, { cause });
}

function circuitOpen(retryAfterMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new ApiError("provider_unavailable", `The text guard-model provider is temporarily unavailable: it has been failing. Retry after ${seconds} s.`, {
    headers: { "retry-after": String(seconds) },
  });
}
