import type { Verdict } from "../../classifiers/classifier.js";
import { readCompletionAnswer, readGuardAnswer } from "./chat-completion.js";
import type { GuardFamily } from "./families/guard-family.js";
import { malformed, postJson } from "./http-json.js";
import type { ProviderEndpoint } from "./openai-moderation.js";
import type { TextProvider } from "./text-provider.js";

/**
 * A guard model behind any OpenAI-compatible server (vLLM, Ollama, TGI, LM Studio, OpenAI…):
 * POST {baseUrl}/chat/completions (or /completions, for a family that writes its own prompt)
 * with the family's request, its answer read by the family. Families that ask several questions
 * (ShieldGemma: one per policy) send them at once; one failed answer fails the attempt.
 */
export function createChatGuardProvider(options: ProviderEndpoint & { family: GuardFamily }): TextProvider {
  const url = new URL(`${options.baseUrl.replace(/\/+$/, "")}/${options.family.endpoint}`);
  const readAnswer = options.family.endpoint === "completions" ? readCompletionAnswer : readGuardAnswer;
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
            readAnswer(await postJson(url, { model: options.model, ...body }, {
              headers, signal: siblings.signal, maxResponseBytes: options.maxResponseBytes ?? 256 * 1024, fetch: options.fetch ?? fetch,
            })),
          ),
        );
        return checkedScores(family.verdict(answers));
      } catch (error) {
        siblings.abort();
        throw error;
      } finally {
        signal?.removeEventListener("abort", onAbort);
      }
    },
  };
}

/** A score that is not a probability (NaN from an underflow, a family's slip) is no verdict: it would overwrite the embedded model's in a maximum. */
function checkedScores(verdict: Verdict): Verdict {
  for (const [category, v] of Object.entries(verdict.categories)) {
    if (!v || !Number.isFinite(v.score) || v.score < 0 || v.score > 1) throw malformed(`the ${category} score is not a probability`);
  }
  return verdict;
}
