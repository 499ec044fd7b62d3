import { ApiError } from "../errors/api-error.js";
import type { CircuitState } from "./circuit-breaker.js";
import type { DeepAnalysisRequest, DeepAnalysisResult, DeepAnalyzer } from "./deep-analyzer.js";
import type { ProviderError } from "./provider-error.js";
import { createProviderGuard, DEFAULT_GUARD_OPTIONS, type GuardOptions, type GuardWording } from "./provider-guard.js";

interface GuardedAnalyzer extends DeepAnalyzer {
  /** Throws ApiError("deep_analysis_unavailable") on every failure; the ProviderError is its cause. */
  analyze(request: DeepAnalysisRequest): Promise<DeepAnalysisResult>;
  circuitState(): CircuitState;
  /** Calls holding a provider slot, and calls waiting for one. */
  load(): { active: number; waiting: number };
}

/** Wraps any DeepAnalyzer with the defences a third-party dependency needs (provider-guard.ts). */
export function createGuardedAnalyzer(inner: DeepAnalyzer, options: Partial<GuardOptions> = {}): GuardedAnalyzer {
  const guard = createProviderGuard({ ...DEFAULT_GUARD_OPTIONS, ...options }, VISION_WORDING);
  return {
    provider: inner.provider,
    model: inner.model,
    circuitState: () => guard.circuitState(),
    load: () => guard.load(),
    analyze: (request) => guard.run((signal) => inner.analyze({ ...request, signal }), request.signal),
  };
}

const VISION_WORDING: GuardWording = {
  unavailable(why, cause) {
    const message = why.endsWith(".") ? why : `Deep image analysis is unavailable: ${why}.`;
    return new ApiError("deep_analysis_unavailable", message, { cause });
  },
  circuitOpen: (seconds) =>
    new ApiError(
      "deep_analysis_unavailable",
      `Deep image analysis is temporarily unavailable: the vision provider has been failing. Retry after ${seconds} s.`,
      { headers: { "retry-after": String(seconds) } },
    ),
  atCapacity: (cause) =>
    new ApiError("deep_analysis_unavailable", "Deep image analysis is at capacity; retry shortly.", { cause, headers: { "retry-after": "1" } }),
  cancelled: "The deep analysis was cancelled.",
  timedOut: "the vision provider did not answer in time",
  clientFailed: "The vision provider client failed.",
  describe(failure: ProviderError) {
    switch (failure.kind) {
      case "timeout":
        return "the vision provider did not answer in time";
      case "malformed":
        return "the vision provider returned an invalid verdict";
      case "refused":
        return "the vision model declined to judge the image";
      default:
        return "the vision provider could not be reached or returned an error";
    }
  },
};
