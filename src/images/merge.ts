import { CATEGORY_IDS, type CategoryId } from "../classifiers/categories.js";
import type { CategoryVerdict, Verdict } from "../classifiers/classifier.js";
import type { DeepAnalysisResult } from "../providers/deep-analyzer.js";

/**
 * The merge rule for an image item judged by the embedded model and by deep analysis: for each
 * category either one judged, the score is the higher of the two and the category is flagged if
 * either flagged it. A category neither judged stays absent. Taking the max means a second opinion
 * can only raise concern, never clear what the embedded model flagged.
 */
export function mergeDeepAnalysis(embedded: Verdict, deep: DeepAnalysisResult | undefined): Verdict {
  if (!deep) return embedded;
  const categories: Partial<Record<CategoryId, CategoryVerdict>> = {};
  for (const id of CATEGORY_IDS) {
    const a = embedded.categories[id];
    const b = deep.categories[id];
    if (a && b) categories[id] = { score: Math.max(a.score, b.score), flagged: a.flagged || b.flagged };
    else if (a ?? b) categories[id] = { ...(a ?? b)! };
  }
  return { categories, explanations: embedded.explanations };
}

export function isFlagged(verdict: Verdict): boolean {
  return Object.values(verdict.categories).some((c) => c?.flagged === true);
}
