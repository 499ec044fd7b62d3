import type { Verdict } from "../../classifiers/classifier.js";
import { ApiError } from "../../errors/api-error.js";
import type { CircuitState } from "../circuit-breaker.js";
import type { ProviderError } from "../provider-error.js";
import { createProviderGuard, DEFAULT_GUARD_OPTIONS, type GuardOptions, type GuardWording } from "../provider-guard.js";
import type { TextProvider } from "./text-provider.js";

export interface GuardedTextProvider extends TextProvider {
  /** Throws ApiError("provider_unavailable") on every failure; the ProviderError is its cause. */
  classify(text: string, signal?: AbortSignal): Promise<Verdict>;
  circuitState(): CircuitState;
}

/** The vision provider's defaults, but a text verdict is wanted sooner. */
const DEFAULT_TEXT_GUARD_OPTIONS: GuardOptions = { ...DEFAULT_GUARD_OPTIONS, attemptTimeoutMs: 10_000, totalTimeoutMs: 20_000, maxConcurrency: 8, maxQueue: 64 };

/** Wraps a text provider with the defences the vision provider has (provider-guard.ts). */
export function createGuardedTextProvider(inner: TextProvider, options: Partial<GuardOptions> = {}): GuardedTextProvider {
  const guard = createProviderGuard({ ...DEFAULT_TEXT_GUARD_OPTIONS, ...options }, TEXT_WORDING);
  return {
    kind: inner.kind,
    id: inner.id,
    judges: inner.judges,
    circuitState: () => guard.circuitState(),
    classify: (text, signal) => guard.run((attemptSignal) => inner.classify(text, attemptSignal), signal),
  };
}

const TEXT_WORDING: GuardWording = {
  unavailable: (why, cause) => new ApiError("provider_unavailable", `The text guard-model provider is unavailable: ${why}.`, { cause }),
  circuitOpen: (seconds) =>
    new ApiError("provider_unavailable", `The text guard-model provider is temporarily unavailable: it has been failing. Retry after ${seconds} s.`, {
      headers: { "retry-after": String(seconds) },
    }),
  atCapacity: (cause) => new ApiError("provider_unavailable", "The text provider is at capacity; retry shortly.", { cause, headers: { "retry-after": "1" } }),
  cancelled: "the call was cancelled",
  timedOut: "it did not answer in time",
  clientFailed: "The text provider client failed.",
  describe(failure: ProviderError) {
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
  },
};
