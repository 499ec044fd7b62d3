import type { CategoryId } from "../../classifiers/categories.js";
import type { TextClassifier, Verdict } from "../../classifiers/classifier.js";

/** The provider kinds TEXT_PROVIDER names; each has its own request format and category mapping (docs/providers.md). */
export const TEXT_PROVIDER_KINDS = ["openai-moderation", "llama-guard", "shieldgemma", "json-verdict"] as const;
export type TextProviderKind = (typeof TEXT_PROVIDER_KINDS)[number];

/**
 * A third-party guard model behind the TextClassifier seam: a verdict on one text, holding only
 * the categories the model's own taxonomy maps onto ours (`judges`); the others stay absent.
 * Implementations make one attempt and throw a ProviderError on failure; retries, time limits,
 * the concurrency limit and the circuit breaker come from createGuardedTextProvider.
 */
export interface TextProvider extends TextClassifier {
  readonly kind: TextProviderKind;
  /** The guard model's name, reported in `models`. */
  readonly id: string;
  /** Our categories this provider can judge. */
  readonly judges: readonly CategoryId[];
  classify(text: string, signal?: AbortSignal): Promise<Verdict>;
}
