import { countText, mostFrequentPerDataset, type TextCounts } from "./added-texts.js";
import type { Example } from "./datasets/example.js";

/** The slice of the rows this adds: trained on, never evaluated (they are not a dataset's own rows). */
export const SHORT_TOKEN_SLICE = "short-token";

/**
 * Probe (session 30, off by default): the short words of rows no source calls harmful, each as a
 * text of its own, with its row's labels. The embedding bag averages a text's feature rows, so a
 * one-letter text is its few rows alone ("u" harassment 0.53, "n" hate 0.67, "b" violence 0.57
 * with `2026-11-m`), and the corpus holds almost no short benign texts to learn that from.
 * Tokens of at most `maxLength` letters or digits, at most `perDataset` distinct ones per dataset
 * (the most frequent first), kept in their row's dataset so a fold holds them out with it.
 */
export function shortTokenNegatives(examples: readonly Example[], options: { perDataset: number; maxLength: number }): Example[] {
  const counts: TextCounts = new Map();
  for (const e of examples) {
    if (e.labels.some((l) => l === 1) || !e.labels.some((l) => l === 0)) continue;
    for (const raw of e.text.split(/\s+/)) {
      const token = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
      if (token.length === 0 || token.length > options.maxLength || !/^[\p{L}\p{N}]+$/u.test(token)) continue;
      countText(counts, e.dataset, token, e.labels);
    }
  }
  return mostFrequentPerDataset(counts, options.perDataset, SHORT_TOKEN_SLICE);
}
