import type { CategoryId } from "../../classifiers/categories.js";
import type { CategoryVerdict, Verdict } from "../../classifiers/classifier.js";
import { OPENAI_CATEGORIES } from "../../classifiers/openai-categories.js";
import { asRecord, malformed, postJson } from "./http-json.js";
import type { TextProvider } from "./text-provider.js";

export interface ProviderEndpoint {
  /** Base URL up to, not including, the endpoint path: "https://api.openai.com/v1", "http://localhost:11434/v1". */
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  maxResponseBytes?: number;
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

const MAPPED = OPENAI_CATEGORIES.flatMap(([theirs, ours]): Array<[string, CategoryId]> => (ours === undefined ? [] : [[theirs, ours]]));

/**
 * OpenAI's moderation API (or anything that answers like it, this service's own
 * /v1/moderations included) as a guard model: POST {baseUrl}/moderations with the text. Its
 * categories map one to one onto ours; `illicit` and `illicit/violent` have no counterpart and
 * are dropped. A category OpenAI says it did not apply to text is left absent (all of them: the
 * text judged in no category, which the merge leaves to the embedded model).
 */
export function createOpenAiModerationProvider(options: ProviderEndpoint): TextProvider {
  const url = new URL(`${options.baseUrl.replace(/\/+$/, "")}/moderations`);
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const post = (body: unknown, signal?: AbortSignal) =>
    postJson(url, body, { headers, signal, maxResponseBytes: options.maxResponseBytes ?? 256 * 1024, fetch: options.fetch ?? fetch });
  return {
    kind: "openai-moderation",
    id: options.model,
    judges: MAPPED.map(([, ours]) => ours),
    async classify(text, signal) {
      return readModeration(await post({ model: options.model, input: text }, signal));
    },
  };
}

function readModeration(body: unknown): Verdict {
  const results = asRecord(body)?.results;
  const result = asRecord(Array.isArray(results) ? results[0] : undefined);
  const flags = asRecord(result?.categories);
  const scores = asRecord(result?.category_scores);
  if (!result || !flags || !scores) throw malformed("no results[0] with categories and category_scores");
  const applied = asRecord(result.category_applied_input_types);
  const categories: Partial<Record<CategoryId, CategoryVerdict>> = {};
  let notAppliedToText = 0;
  for (const [theirs, ours] of MAPPED) {
    const types = applied?.[theirs];
    if (Array.isArray(types) && !types.includes("text")) {
      notAppliedToText++;
      continue;
    }
    const score = scores[theirs];
    const flagged = flags[theirs];
    if (score === undefined && flagged === undefined) continue;
    if (typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 1 || typeof flagged !== "boolean") {
      throw malformed(`category "${theirs}" is not a score in [0, 1] with a boolean flag`);
    }
    categories[ours] = { score, flagged };
  }
  // Every category said not applied to text (this service's own answer for a language it does not
  // cover) is an answer that judged nothing, not a broken one: as malformed it was retried and
  // opened the circuit breaker, and the next English texts went unseconded.
  if (Object.keys(categories).length === 0 && notAppliedToText === 0) throw malformed("no category this service knows was judged");
  return { categories, explanations: {} };
}
