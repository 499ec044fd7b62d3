import { CATEGORY_IDS } from "../classifiers/categories.js";
import { exampleRuns, type Corpus } from "./corpus.js";
import { markParentsOfPositives } from "./datasets/example.js";
import type { TrainedModel } from "./trainer.js";

/** What dropUnsupportedPositives changed: the corpus's labels with some positives made unknown. */
export interface CleanedLabels {
  labels: Int8Array;
  /** Texts whose positive label was dropped, by "dataset category". */
  dropped: Record<string, number>;
  /** Per learned head, the out-of-fold probability under which a positive is dropped. */
  bars: Record<string, number>;
  /** The examples (corpus.example values) with at least one positive dropped. */
  examples: Set<number>;
}

/**
 * Positives the text alone does not support, found the way confident learning finds label errors
 * (Northcutt et al., 2021), in one direction only: the training texts are split in two halves, a
 * network trained on each half scores the other, and a text labelled positive for a head whose
 * out-of-fold probability there is no higher than the average labelled-negative text's is made
 * unknown for that head (it then trains no head in that category; its other labels stay).
 * Why: several sources label what the text alone cannot show (CAD with the thread as context,
 * Reddit C-SSRS with the user's label copied to every post), and such positives teach a head
 * ordinary words. Negatives are left alone: the benign look-alike sets are negatives a model
 * should find hard, and dropping them would remove exactly what they teach.
 * `train` trains one network on the given rows; a text's score is its highest window's, as the
 * engine scores long text. A kept positive sub-category keeps its parent positive. `only`: the
 * categories whose positives may be dropped (absent: every head's).
 */
export function dropUnsupportedPositives(c: Corpus, rows: Uint32Array, heads: readonly number[], seed: number, only: ReadonlySet<number> | undefined, train: (rows: Uint32Array, seed: number) => TrainedModel): CleanedLabels {
  const H = CATEGORY_IDS.length;
  const K = heads.length;
  // Each text's training rows (its windows, which share its labels), and the half it falls in.
  const texts = exampleRuns(c, rows);
  const half = (r: number): number => Math.imul(c.example[r]! ^ seed, 0x9e3779b1) >>> 31;
  // Highest out-of-fold probability of each text, per head: texts[t]'s is prob[t * K + k].
  const prob = new Float64Array(texts.length * K).fill(-Infinity);
  const out = new Float64Array(K);
  for (const side of [0, 1]) {
    const model = train(rows.filter((r) => half(r) !== side), seed + side);
    texts.forEach((windows, t) => {
      if (half(windows[0]!) !== side) return;
      for (const r of windows) {
        model.scorer.logits(c.feats.subarray(c.offsets[r]!, c.offsets[r + 1]!), out);
        for (let k = 0; k < K; k++) prob[t * K + k] = Math.max(prob[t * K + k]!, out[k]!);
      }
    });
  }
  for (let i = 0; i < prob.length; i++) prob[i] = sigmoid(prob[i]!);
  // The bar per head: the average probability of a text labelled negative for it.
  const labelOf = (t: number, cat: number): number => c.labels[texts[t]![0]! * H + cat]!;
  const bars = heads.map((cat, k) => {
    let sum = 0, n = 0;
    texts.forEach((_, t) => { if (labelOf(t, cat) === 0) { sum += prob[t * K + k]!; n++; } });
    return n > 0 ? sum / n : 0;
  });
  const labels = c.labels.slice();
  const dropped: Record<string, number> = {};
  const examples = new Set<number>();
  texts.forEach((windows, t) => {
    heads.forEach((cat, k) => {
      if ((only && !only.has(cat)) || labelOf(t, cat) !== 1 || prob[t * K + k]! > bars[k]!) return;
      const key = `${c.datasets[c.dataset[windows[0]!]!]} ${CATEGORY_IDS[cat]}`;
      dropped[key] = (dropped[key] ?? 0) + 1;
      examples.add(c.example[windows[0]!]!);
      for (const r of windows) labels[r * H + cat] = -1;
    });
  });
  for (const r of rows) markParentsOfPositives(labels, r * H);
  return { labels, dropped, examples, bars: Object.fromEntries(heads.map((cat, k) => [CATEGORY_IDS[cat], Number(bars[k]!.toFixed(4))])) };
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
