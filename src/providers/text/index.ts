import type { TextProviderConfig } from "./config.js";
import { createChatGuardProvider } from "./chat-guard.js";
import { createJsonVerdict } from "./families/json-verdict.js";
import { llamaGuard } from "./families/llama-guard.js";
import { createShieldGemma } from "./families/shieldgemma.js";
import { createGuardedTextProvider, type GuardedTextProvider } from "./guarded-text-provider.js";
import { createOpenAiModerationProvider } from "./openai-moderation.js";
import type { TextProvider } from "./text-provider.js";
import type { Metrics } from "../../observability/metrics.js";
import { ProviderError } from "../provider-error.js";

/** The guarded provider TEXT_PROVIDER_* configures, its attempts and circuit reported to `metrics` (provider label "text:KIND"). */
export function createTextProvider(config: TextProviderConfig, options: { fetch?: typeof fetch; metrics?: Metrics } = {}): GuardedTextProvider {
  const endpoint = { baseUrl: config.baseUrl, model: config.model, apiKey: config.apiKey, ...(options.fetch ? { fetch: options.fetch } : {}) };
  const inner: TextProvider =
    config.kind === "openai-moderation"
      ? createOpenAiModerationProvider(endpoint)
      : createChatGuardProvider({
          ...endpoint,
          family:
            config.kind === "llama-guard" ? llamaGuard
            : config.kind === "shieldgemma" ? createShieldGemma({ threshold: config.threshold })
            : createJsonVerdict({ responseFormat: config.responseFormat }),
        });
  const metrics = options.metrics;
  const guarded = createGuardedTextProvider(metrics ? observed(inner, metrics) : inner, config.guard);
  metrics?.watchCircuit(`text:${guarded.kind}`, () => guarded.circuitState());
  return guarded;
}

/** Records every attempt (inside the guard, so retries count as the calls they are), as the vision provider's are. */
function observed(inner: TextProvider, metrics: Metrics): TextProvider {
  const label = `text:${inner.kind}`;
  return {
    ...inner,
    async classify(text, signal) {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const verdict = await inner.classify(text, signal);
        metrics.providerCall(label, "success", seconds());
        return verdict;
      } catch (error) {
        metrics.providerCall(label, signal?.aborted ? "cancelled" : error instanceof ProviderError ? error.kind : "error", seconds());
        throw error;
      }
    },
  };
}
