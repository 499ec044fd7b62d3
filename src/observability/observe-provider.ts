import type { DeepAnalyzer } from "../providers/deep-analyzer.js";
import { ProviderError } from "../providers/provider-error.js";
import type { Metrics } from "./metrics.js";

/**
 * Records every attempt at a provider (outcome: success, the ProviderError kind, or cancelled)
 * and its time. Wraps the raw client, inside createGuardedAnalyzer, so retries count as the
 * separate calls they are; the guard's circuit is reported by metrics.watchCircuit.
 */
export function observeDeepAnalyzer(inner: DeepAnalyzer, metrics: Metrics): DeepAnalyzer {
  return {
    provider: inner.provider,
    model: inner.model,
    async analyze(request) {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const result = await inner.analyze(request);
        metrics.providerCall(inner.provider, "success", seconds());
        return result;
      } catch (error) {
        const outcome = request.signal?.aborted ? "cancelled" : error instanceof ProviderError ? error.kind : "error";
        metrics.providerCall(inner.provider, outcome, seconds());
        throw error;
      }
    },
  };
}
