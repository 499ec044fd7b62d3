import { CATEGORY_IDS, type CategoryId } from "../classifiers/categories.js";
import type { TextClassifier, Verdict } from "../classifiers/classifier.js";
import { type ComparisonSentence, padded } from "./comparison-sentences.js";

/** One sentence whose flags differ between two classifiers. */
export interface FlagChange {
  sentence: ComparisonSentence;
  /** Categories flagged by one classifier and not the other, with both scores (absent: not scored). */
  categories: { category: CategoryId; before: { score: number | undefined; flagged: boolean }; after: { score: number | undefined; flagged: boolean } }[];
  /** "new miss", "new catch", "new false positive", "fixed false positive", or "other category" (flagged by both, not alike). */
  kind: "new miss" | "new catch" | "new false positive" | "fixed false positive" | "other category";
}

export interface ModelComparison {
  harmful: number;
  benign: number;
  /** Sentences flagged in any category, by each classifier. */
  flagged: { before: { harmful: number; benign: number }; after: { harmful: number; benign: number } };
  /**
   * The same, each sentence inside ordinary prose (padded()): what a long benign text around a
   * short harm takes away (docs/model-history.md, sessions 39 and 45).
   */
  flaggedInProse: { before: { harmful: number; benign: number }; after: { harmful: number; benign: number } };
  changes: FlagChange[];
}

const anyFlag = (v: Verdict): boolean => CATEGORY_IDS.some((c) => v.categories[c]?.flagged);

/**
 * How `after` flags `sentences` against `before`: counts of flagged harmful and benign sentences,
 * alone and inside ordinary prose, and every sentence whose flags (alone) differ in some category.
 * Synchronous classifiers only (the embedded engine), as the model files are compared in process.
 */
export function compareFlags(before: TextClassifier, after: TextClassifier, sentences: readonly ComparisonSentence[]): ModelComparison {
  const counts = () => ({ before: { harmful: 0, benign: 0 }, after: { harmful: 0, benign: 0 } });
  const out: ModelComparison = { harmful: 0, benign: 0, flagged: counts(), flaggedInProse: counts(), changes: [] };
  for (const sentence of sentences) {
    const a = before.classify(sentence.text) as Verdict;
    const b = after.classify(sentence.text) as Verdict;
    const side = sentence.harmful ? "harmful" : "benign";
    out[side]++;
    const [wasFlagged, isFlagged] = [anyFlag(a), anyFlag(b)];
    if (wasFlagged) out.flagged.before[side]++;
    if (isFlagged) out.flagged.after[side]++;
    const inProse = padded(sentence.text);
    if (anyFlag(before.classify(inProse) as Verdict)) out.flaggedInProse.before[side]++;
    if (anyFlag(after.classify(inProse) as Verdict)) out.flaggedInProse.after[side]++;
    const categories = CATEGORY_IDS.filter((c) => (a.categories[c]?.flagged ?? false) !== (b.categories[c]?.flagged ?? false)).map((category) => ({
      category,
      before: { score: a.categories[category]?.score, flagged: a.categories[category]?.flagged ?? false },
      after: { score: b.categories[category]?.score, flagged: b.categories[category]?.flagged ?? false },
    }));
    if (categories.length === 0) continue;
    const kind = wasFlagged === isFlagged ? "other category" : sentence.harmful ? (isFlagged ? "new catch" : "new miss") : isFlagged ? "new false positive" : "fixed false positive";
    out.changes.push({ sentence, categories, kind });
  }
  return out;
}

