import { CATEGORY_IDS } from "../classifiers/categories.js";
import { type Example, markChildrenOfNegatives, markParentsOfPositives } from "./datasets/example.js";

/** The slice of the rows this adds: trained on, never evaluated (they are not a dataset's own rows). */
export const WORD_PRIOR_SLICE = "word-prior";

export interface WordPriorOptions {
  /** At most this many words per dataset, the ones in most rows first. */
  perDataset: number;
  /** A word needs this many of the dataset's rows, and a category this many rows labelled on it. */
  minRows: number;
  /** Weight of each added row beside its dataset's. */
  weight: number;
  /**
   * Also negative where the word is no likelier in harm than the dataset's average, even if most
   * of its rows are positive (session 47's first try: in a set of mostly self-harm posts "myself"
   * became a self-harm negative, and first-person self-harm sentences were missed).
   */
  averageNegatives?: boolean;
}

/** Words as counted here: letters (and inner apostrophes), two or more, lower case. */
const WORD = /\p{L}[\p{L}']+/gu;

/**
 * Probe (session 47, off by default): each frequent word of a dataset as a text of its own,
 * labelled by what that dataset's rows with the word say. The embedding bag scores a one-word text
 * by the word's feature rows alone, and those rows learn mostly from short positives (image
 * prompts, template sentences), so a word flagged alone is an everyday sentence waiting to be
 * flagged: `2026-12-c` scores "blood" alone violence 0.965 although 379 rows with no harm label
 * say it against 273 with one (words-alone.ts, docs/model-history.md session 46).
 *
 * Per category the word's row is positive only where most of the dataset's rows with the word are
 * positive and the word at least doubles the dataset's positive rate (a slur in a hate set), and
 * negative where most are not ("blood" in a hate set); otherwise (a word of most rows of a set of
 * mostly positives) the category is left unknown. Nothing is hand-picked: the words
 * and labels are the data's. Rows stay in their dataset, so a fold holds them out with it, and do
 * not count toward its cap (Example.uncounted).
 */
export function wordPriorRows(examples: readonly Example[], options: WordPriorOptions): Example[] {
  const H = CATEGORY_IDS.length;
  interface Tally { rows: number; positive: Int32Array; labelled: Int32Array }
  const byDataset = new Map<string, { base: Tally; words: Map<string, Tally> }>();
  const tally = (): Tally => ({ rows: 0, positive: new Int32Array(H), labelled: new Int32Array(H) });
  const add = (t: Tally, labels: Int8Array): void => {
    t.rows++;
    for (let c = 0; c < H; c++) {
      if (labels[c] === -1) continue;
      t.labelled[c]!++;
      if (labels[c] === 1) t.positive[c]!++;
    }
  };
  for (const e of examples) {
    let d = byDataset.get(e.dataset);
    if (!d) byDataset.set(e.dataset, (d = { base: tally(), words: new Map() }));
    add(d.base, e.labels);
    for (const word of new Set(e.text.toLowerCase().match(WORD) ?? [])) {
      let t = d.words.get(word);
      if (!t) d.words.set(word, (t = tally()));
      add(t, e.labels);
    }
  }
  const out: Example[] = [];
  for (const [dataset, { base, words }] of [...byDataset].sort(([a], [b]) => a.localeCompare(b))) {
    const frequent = [...words].filter(([, t]) => t.rows >= options.minRows).sort((a, b) => b[1].rows - a[1].rows || a[0].localeCompare(b[0])).slice(0, options.perDataset);
    for (const [word, t] of frequent) {
      const labels = new Int8Array(H).fill(-1);
      for (let c = 0; c < H; c++) {
        if (t.labelled[c]! < options.minRows) continue;
        const share = t.positive[c]! / t.labelled[c]!;
        const baseShare = base.positive[c]! / base.labelled[c]!;
        if (share >= 0.5 && share >= 2 * baseShare) labels[c] = 1;
        else if (share < 0.5 || (options.averageNegatives && share <= baseShare)) labels[c] = 0;
      }
      markParentsOfPositives(labels);
      markChildrenOfNegatives(labels);
      if (labels.every((l) => l === -1)) continue;
      out.push({ text: word, dataset, slice: WORD_PRIOR_SLICE, labels, trainingOnly: true, uncounted: true, weight: options.weight });
    }
  }
  return out;
}
