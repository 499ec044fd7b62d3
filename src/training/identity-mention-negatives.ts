import { NORMALIZED_IDENTITY_WORDS } from "../classifiers/model/identity-words.js";
import { normalizeForMatching } from "../classifiers/normalize/normalize.js";
import { countText, mostFrequentPerDataset, type TextCounts } from "./added-texts.js";
import { CATEGORY_INDEX, type Example } from "./datasets/example.js";

/** The slice of the rows this adds: trained on, never evaluated (they are not a dataset's own rows). */
export const IDENTITY_MENTION_SLICE = "identity-mention";

/**
 * Probe (session 34, off by default): a group's name as its rows say it, alone and with one
 * neighbouring word ("women", "the women", "muslim community"), as texts of their own, taken
 * from rows no source calls harmful and whose hate label is a known 0, with their row's labels.
 * All group names share one placeholder feature (identity-words.ts), and most public text that
 * names a group is hateful, so that feature alone reads as hate: with `2026-11-m` "women",
 * "gay" and "jews" score hate 0.98, "the women" 0.78 and "I'm a muslim" 0.60, all flagged.
 * A fragment of at most two words of a benign text is benign; the heads should find hate in
 * what is said of a group, never in its name. At most `perDataset` distinct fragments per
 * dataset (the most frequent first), kept in their row's dataset so a fold holds them out with it.
 */
export function identityMentionNegatives(examples: readonly Example[], options: { perDataset: number; withNeighbours?: boolean }): Example[] {
  const hate = CATEGORY_INDEX.hate;
  const counts: TextCounts = new Map();
  for (const e of examples) {
    if (e.labels[hate] !== 0 || e.labels.some((l) => l === 1)) continue;
    const words = e.text.split(/\s+/).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")).filter((w) => w.length > 0);
    for (let i = 0; i < words.length; i++) {
      if (!NORMALIZED_IDENTITY_WORDS.has(normalizeForMatching(words[i]!))) continue;
      const fragments = [words[i]!];
      if (options.withNeighbours !== false && i > 0) fragments.push(`${words[i - 1]} ${words[i]}`);
      if (options.withNeighbours !== false && i + 1 < words.length) fragments.push(`${words[i]} ${words[i + 1]}`);
      for (const fragment of fragments) countText(counts, e.dataset, fragment.toLowerCase(), e.labels);
    }
  }
  return mostFrequentPerDataset(counts, options.perDataset, IDENTITY_MENTION_SLICE);
}
