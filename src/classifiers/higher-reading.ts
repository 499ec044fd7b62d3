import { CATEGORY_IDS, type CategoryId } from "./categories.js";
import type { CategoryVerdict, EvidenceSpan, Verdict } from "./classifier.js";

/**
 * Per category, the reading that flags it, else the one that scores it higher (the earliest on a
 * tie), with its explanation: a text is judged by what a reader can see in it. The readings' spans
 * must be offsets into one text. The engine takes the higher of a text read two ways (zero-width
 * characters as spaces or not, engine.ts); the combined layer the higher of the whole joined text
 * and its pairs of neighbours read alone (moderation/combined-reading.ts).
 */
export function higherPerCategory(readings: readonly Verdict[]): Pick<Verdict, "categories" | "explanations"> {
  const categories: Partial<Record<CategoryId, CategoryVerdict>> = {};
  const explanations: Partial<Record<CategoryId, EvidenceSpan[]>> = {};
  for (const c of CATEGORY_IDS) {
    let from: Verdict | undefined;
    for (const reading of readings) {
      const entry = reading.categories[c];
      const best = from?.categories[c];
      if (entry && (!best || (entry.flagged && !best.flagged) || (entry.flagged === best.flagged && entry.score > best.score))) from = reading;
    }
    if (!from) continue;
    categories[c] = from.categories[c]!;
    const spans = from.explanations[c];
    if (spans) explanations[c] = spans;
  }
  return { categories, explanations };
}
