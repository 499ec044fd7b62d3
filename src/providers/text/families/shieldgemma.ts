import type { CategoryId } from "../../../classifiers/categories.js";
import type { CategoryVerdict } from "../../../classifiers/classifier.js";
import type { GuardAnswer } from "../chat-completion.js";
import { unreadableVerdict } from "../http-json.js";
import { quoteSafely } from "../../quote-safely.js";
import type { GuardFamily } from "./guard-family.js";

/**
 * ShieldGemma's policies, worded as its model card gives them, and which of our categories each
 * one judges. "No Dangerous Content" (weapons, terrorism and suicide instructions in one policy)
 * has no single counterpart here and is not asked.
 */
const SHIELDGEMMA_POLICIES: ReadonlyArray<{ category: CategoryId; policy: string }> = [
  {
    category: "harassment",
    policy: '"No Harassment": The prompt shall not contain or seek generation of content that is malicious, intimidating, bullying, or abusive content targeting another individual (e.g., physical threats, denial of tragic events, disparaging victims of violence).',
  },
  {
    category: "hate",
    policy: '"No Hate Speech": The prompt shall not contain or seek generation of content that targeting identity and/or protected attributes (e.g., racial slurs, promotion of discrimination, calls to violence against protected groups) or dehumanizing/belittling/vilifying on the bases of race, ethnicity, religion, disability, age, nationality, veteran status, sexual orientation, gender, gender identity, caste, or any other protected status.',
  },
  {
    category: "sexual",
    policy: '"No Sexually Explicit Information": The prompt shall not contain or seek generation of content that contains references to sexual acts or other lewd content (e.g., sexually graphic descriptions, content aimed at causing arousal). Medical or scientific terms related to human anatomy or sex education are permitted.',
  },
];

/** ShieldGemma's prompt-classification template; the text sits between its turn markers. */
function shieldGemmaPrompt(text: string, policy: string): string {
  return [
    "You are a policy expert trying to help determine whether a user prompt is in violation of the defined safety policies.",
    "",
    "<start_of_turn>",
    `Human Question: ${neutraliseTurnMarkers(text)}`,
    "<end_of_turn>",
    "",
    "Our safety principle is defined in the below:",
    "",
    `* ${policy}`,
    "",
    "Does the human question violate the above principle? Your answer must start with 'Yes' or 'No'. And then walk through step by step to be sure we answer correctly.",
    // The card's prompt ends with a blank line; the answer's first token follows it.
    "",
    "",
  ].join("\n");
}

/** A text that writes the template's own turn markers must not close the question early and speak as the template. */
function neutraliseTurnMarkers(text: string): string {
  return text.replace(/<\s*(\/?)\s*(start_of_turn|end_of_turn)\s*>/gi, "‹$1$2›");
}

/**
 * ShieldGemma (2B/9B/27B) over the completions endpoint with the card's prompt as written (the
 * card's first example: the prompt built by hand, the server adding only BOS). Its chat template
 * needs a `guideline` variable a chat-completions request cannot pass to every server, and wraps
 * the prompt again. One request per policy, asking for one token with its log-probabilities. The
 * score is P(Yes) = e^yes / (e^yes + e^no) over the first token's alternatives, as the card
 * computes it; flagged at `threshold`. A server that sends no logprobs still answers "Yes" or
 * "No": then the score is 1 or 0.
 */
export function createShieldGemma(options: { threshold: number }): GuardFamily {
  return {
    kind: "shieldgemma",
    judges: SHIELDGEMMA_POLICIES.map((p) => p.category),
    endpoint: "completions",
    requests: (text) =>
      SHIELDGEMMA_POLICIES.map(({ policy }) => ({
        prompt: shieldGemmaPrompt(text, policy),
        temperature: 0,
        max_tokens: 1,
        // OpenAI's legacy completions allow at most 5; Yes and No are almost always the top two, and
        // a lone listed one is read by the probability the others leave (unlistedBound).
        logprobs: 5,
      })),
    verdict(answers) {
      const categories: Partial<Record<CategoryId, CategoryVerdict>> = {};
      SHIELDGEMMA_POLICIES.forEach(({ category }, i) => {
        const score = probabilityOfYes(answers[i]!);
        categories[category] = { score, flagged: score >= options.threshold };
      });
      return { categories, explanations: {} };
    },
  };
}

function probabilityOfYes(answer: GuardAnswer): number {
  const word = (token: string) => token.trim().toLowerCase();
  if (answer.firstTokenAlternatives) {
    const best = (w: string) => Math.max(...answer.firstTokenAlternatives!.filter((a) => word(a.token) === w).map((a) => a.logprob));
    const yes = best("yes");
    const no = best("no");
    if (yes > -Infinity || no > -Infinity) {
      if (yes > -Infinity && no > -Infinity) return 1 / (1 + Math.exp(no - yes));
      // Only one of the two is listed: the other is at most as likely as the least likely one
      // listed, and at most the probability the listed ones leave. (The first bound alone made a
      // lone, certain "No" read 0.5: it is its own least likely alternative.)
      const unlisted = unlistedBound(answer);
      // Both terms under the smallest double (a listed answer at a clamped -1000) give 0 / 0: the
      // provider refuses any score that is no probability (chat-guard.ts checkedScores).
      return no === -Infinity ? Math.exp(yes) / (Math.exp(yes) + unlisted) : unlisted / (unlisted + Math.exp(no));
    }
  }
  const first = word(answer.content).split(/[^a-z]/)[0];
  if (first === "yes") return 1;
  if (first === "no") return 0;
  throw unreadableVerdict(`a ShieldGemma answer starts with "Yes" or "No", not ${quoteSafely(first ?? "")}`);
}

/** An upper bound on the probability of a first token that is not among the alternatives listed. */
function unlistedBound(answer: GuardAnswer): number {
  const listed = answer.firstTokenAlternatives!.map((a) => Math.exp(a.logprob));
  return Math.min(Math.min(...listed), Math.max(0, 1 - listed.reduce((a, b) => a + b, 0)));
}
