import { CATEGORY_IDS } from "../classifiers/categories.js";
import type { Verdict } from "../classifiers/classifier.js";
import { assembleAnswer, textItemResult } from "../moderation/assemble-answer.js";

/**
 * A Verdict as it crosses between threads: scores in one plain array (NaN: not evaluated),
 * flags in a bitmask, explanations as JSON (present only when something is flagged, or a
 * policy's thresholds asked for spans of what they may flag). Cloning the nested object instead
 * cost several microseconds on each side of every request, and so does a typed array (each gets
 * its own ArrayBuffer).
 */
export interface EncodedVerdict {
  scores: number[];
  flagged: number;
  explanations: string | undefined;
  /** The language gate's findings (src/classifiers/language/), as in the Verdict. */
  language: string | undefined;
  notEvaluated: Verdict["notEvaluated"];
}

export function encodeVerdict(verdict: Verdict): EncodedVerdict {
  // Packed (map, not new Array(n)): V8 clones a holey array property by property.
  const scores: number[] = CATEGORY_IDS.map(() => Number.NaN);
  let flagged = 0;
  CATEGORY_IDS.forEach((id, i) => {
    const entry = verdict.categories[id];
    if (!entry) return;
    scores[i] = entry.score;
    if (entry.flagged) flagged |= 1 << i;
  });
  const hasExplanations = Object.keys(verdict.explanations).length > 0;
  return { scores, flagged, explanations: hasExplanations ? JSON.stringify(verdict.explanations) : undefined, language: verdict.language, notEvaluated: verdict.notEvaluated };
}

export function decodeVerdict(encoded: EncodedVerdict): Verdict {
  const categories: Verdict["categories"] = {};
  CATEGORY_IDS.forEach((id, i) => {
    const score = encoded.scores[i]!;
    if (!Number.isNaN(score)) categories[id] = { score, flagged: (encoded.flagged & (1 << i)) !== 0 };
  });
  const verdict: Verdict = { categories, explanations: encoded.explanations === undefined ? {} : (JSON.parse(encoded.explanations) as Verdict["explanations"]) };
  if (encoded.language !== undefined) verdict.language = encoded.language;
  if (encoded.notEvaluated) verdict.notEvaluated = encoded.notEvaluated;
  return verdict;
}

/** The answer from encoded verdicts; for RPC answers the worker and the parent both assemble it this way. */
export function assembleAnswerFromEncoded(id: string, model: string, verdicts: EncodedVerdict[], combined: EncodedVerdict | undefined) {
  const results = verdicts.map((verdict, index) => textItemResult(index, decodeVerdict(verdict), model));
  return assembleAnswer(id, model, results, combined && decodeVerdict(combined));
}
