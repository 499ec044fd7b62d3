import { CATEGORY_IDS, type CategoryId } from "../classifiers/categories.js";
import type { TextClassifier, Verdict } from "../classifiers/classifier.js";
import type { Example } from "./datasets/example.js";

/**
 * Everyday and post-like datasets whose texts with no positive label give the common words
 * (assistant queries, Reddit posts, counselling answers, long-form prose).
 */
export const EVERYDAY_WORD_SOURCES: readonly string[] = ["clinc150", "banking77", "guest-misogyny", "counsel-chat", "longform-prose"];

/**
 * The `n` most frequent words (three letters or more, lower case) of the texts with no positive
 * label, most frequent first (ties by first appearance).
 */
export function commonBenignWords(examples: readonly Example[], n: number): string[] {
  const counts = new Map<string, number>();
  for (const e of examples) {
    if (e.labels.some((l) => l === 1)) continue;
    for (const word of e.text.toLowerCase().match(/[a-z']{3,}/g) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, n).map(([word]) => word);
}

export interface WordsAlone {
  /** Each word the classifier flags on its own, with the categories it flags. */
  flagged: { word: string; categories: CategoryId[] }[];
  /** Words flagged per category (a word may count in several). */
  byCategory: Partial<Record<CategoryId, number>>;
}

/**
 * Each word classified alone. The bag model learns a word's own lean from short positives (image
 * prompts, template sentences) with nothing else in them; a sentence around the word usually pulls
 * it back, so a word flagged alone is a short everyday sentence waiting to be flagged ("Which veins
 * do nurses use to draw blood?": docs/model-history.md, session 46). Synchronous classifiers only.
 */
export function wordsFlaggedAlone(classifier: TextClassifier, words: readonly string[]): WordsAlone {
  const out: WordsAlone = { flagged: [], byCategory: {} };
  for (const word of words) {
    const verdict = classifier.classify(word) as Verdict;
    const categories = CATEGORY_IDS.filter((c) => verdict.categories[c]?.flagged);
    if (categories.length === 0) continue;
    out.flagged.push({ word, categories });
    for (const c of categories) out.byCategory[c] = (out.byCategory[c] ?? 0) + 1;
  }
  return out;
}
