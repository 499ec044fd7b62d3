import type { CategoryId } from "../../../classifiers/categories.js";
import type { Verdict } from "../../../classifiers/classifier.js";
import type { GuardAnswer } from "../chat-completion.js";

/**
 * How one family of guard models is asked about a text over an OpenAI-compatible server and how its answer
 * is read: the prompt format, the output parsing, and its categories mapped onto ours.
 */
export interface GuardFamily {
  readonly kind: "llama-guard" | "shieldgemma" | "json-verdict";
  /** Our categories the family's taxonomy maps onto; the others stay absent from its verdicts. */
  readonly judges: readonly CategoryId[];
  /**
   * Where the requests go under the base URL: `chat/completions` (the server's chat template
   * wraps the messages), or `completions` (the family's own prompt, sent as written).
   */
  readonly endpoint: "chat/completions" | "completions";
  /** Request bodies for one text, without `model`; all are sent at once. */
  requests(text: string): Record<string, unknown>[];
  /** The verdict from the answers, in request order. Throws a malformed ProviderError on anything unexpected. */
  verdict(answers: GuardAnswer[]): Verdict;
}
