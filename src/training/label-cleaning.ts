import { CATEGORY_IDS } from "../classifiers/categories.js";
import type { Corpus } from "./corpus.js";
import { CATEGORY_INDEX, PARENT } from "./datasets/example.js";
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
  const half = (r: number): number => Math.imul(c.example[r]! ^ seed, 0x9e3779b1) >>> 31;
  // Highest out-of-fold logit of each training text, per head.
  const best = new Map<number, Float64Array>();
  const out = new Float64Array(K);
  for (const side of [0, 1]) {
    const model = train(rows.filter((r) => half(r) !== side), seed + side);
    for (const r of rows) {
      if (half(r) !== side) continue;
      model.scorer.logits(c.feats.subarray(c.offsets[r]!, c.offsets[r + 1]!), out);
      const e = c.example[r]!;
      const top = best.get(e);
      if (!top) best.set(e, Float64Array.from(out));
      else for (let k = 0; k < K; k++) if (out[k]! > top[k]!) top[k] = out[k]!;
    }
  }
  // Each text's label for a head (its rows share the text's labels), and the bar per head.
  const rowsOf = new Map<number, number[]>();
  for (const r of rows) {
    const list = rowsOf.get(c.example[r]!);
    if (list) list.push(r);
    else rowsOf.set(c.example[r]!, [r]);
  }
  const labelOf = new Map<number, number>([...rowsOf].map(([e, list]) => [e, list[0]!]));
  const bars = new Float64Array(K);
  heads.forEach((cat, k) => {
    let sum = 0, n = 0;
    for (const [e, r] of labelOf) if (c.labels[r * H + cat] === 0) { sum += sigmoid(best.get(e)![k]!); n++; }
    bars[k] = n > 0 ? sum / n : 0;
  });
  const labels = c.labels.slice();
  const dropped: Record<string, number> = {};
  const examples = new Set<number>();
  for (const [e, r0] of labelOf) {
    heads.forEach((cat, k) => {
      if ((only && !only.has(cat)) || c.labels[r0 * H + cat] !== 1 || sigmoid(best.get(e)![k]!) > bars[k]!) return;
      const key = `${c.datasets[c.dataset[r0]!]} ${CATEGORY_IDS[cat]}`;
      examples.add(e);
      dropped[key] = (dropped[key] ?? 0) + 1;
      for (const r of rowsOf.get(e)!) labels[r * H + cat] = -1;
    });
  }
  for (const r of rows) {
    for (const [child, parent] of Object.entries(PARENT)) {
      if (labels[r * H + CATEGORY_INDEX[child as keyof typeof CATEGORY_INDEX]] === 1) labels[r * H + CATEGORY_INDEX[parent]] = 1;
    }
  }
  return { labels, dropped, examples, bars: Object.fromEntries(heads.map((cat, k) => [CATEGORY_IDS[cat], Number(bars[k]!.toFixed(4))])) };
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
