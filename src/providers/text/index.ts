import type { TextProviderConfig } from "./config.js";
import { createChatGuardProvider } from "./chat-guard.js";
import { createJsonVerdict } from "./families/json-verdict.js";
import { llamaGuard } from "./families/llama-guard.js";
import { createShieldGemma } from "./families/shieldgemma.js";
import { createGuardedTextProvider, type GuardedTextProvider } from "./guarded-text-provider.js";
import { createOpenAiModerationProvider } from "./openai-moderation.js";
import type { TextProvider } from "./text-provider.js";

/** The guarded provider TEXT_PROVIDER_* configures. `fetch` is injected by tests. */
export function createTextProvider(config: TextProviderConfig, options: { fetch?: typeof fetch } = {}): GuardedTextProvider {
  const endpoint = { baseUrl: config.baseUrl, model: config.model, apiKey: config.apiKey, ...options };
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
  return createGuardedTextProvider(inner, config.guard);
}
