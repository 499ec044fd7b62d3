import { readGuardAnswer } from "./chat-completion.js";
import type { GuardFamily } from "./families/guard-family.js";
import { postJson } from "./http-json.js";
import type { ProviderEndpoint } from "./openai-moderation.js";
import type { TextProvider } from "./text-provider.js";

/**
 * A guard model behind any OpenAI-compatible chat-completions server (vLLM, Ollama, TGI,
 * LM Studio, OpenAI…): POST {baseUrl}/chat/completions with the family's prompt, its answer
 * read by the family. Families that ask several questions (ShieldGemma: one per policy) send
 * them at once; one failed answer fails the attempt.
 */
export function createChatGuardProvider(options: ProviderEndpoint & { family: GuardFamily }): TextProvider {
  const url = new URL(`${options.baseUrl.replace(/\/+$/, "")}/chat/completions`);
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const { family } = options;
  return {
    kind: family.kind,
    id: options.model,
    judges: family.judges,
    async classify(text, signal) {
      // The first failure cancels the family's other questions: the attempt has failed anyway.
      const siblings = new AbortController();
      const onAbort = () => siblings.abort(signal?.reason);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
      try {
        const answers = await Promise.all(
          family.requests(text).map(async (body) =>
            readGuardAnswer(await postJson(url, { model: options.model, ...body }, {
              headers, signal: siblings.signal, maxResponseBytes: options.maxResponseBytes ?? 256 * 1024, fetch: options.fetch ?? fetch,
            })),
          ),
        );
        return family.verdict(answers);
      } catch (error) {
        siblings.abort();
        throw error;
      } finally {
        signal?.removeEventListener("abort", onAbort);
      }
    },
  };
}
