import { CATEGORY_IDS } from "../classifiers/categories.js";
import type { Corpus } from "./corpus.js";

/**
 * Per-source offsets (a probe; off by default): in training, a head's logit for a row also gets a
 * learned offset of the row's dataset for that head, dropped at inference. Datasets differ in how
 * often they are positive for reasons of sampling, not content (CAD is 5 % harassment, Toxic Spans
 * mostly toxic): without an offset the network can learn each source's style as its base rate,
 * which is wrong on text from a source it never saw. The offset takes the base rate, so the
 * network has to learn what separates a dataset's positives from its own negatives.
 *
 * Only a (dataset, head) pair with both classes gets one: a source whose rows are all negative for
 * a head (everyday queries, benign prose) must still teach the network that its text is harmless,
 * which an offset would learn instead.
 */
export interface SourceOffsets {
  /** slot[dataset * K + k]: index into `values`, or -1 where the pair has no offset. */
  slot: Int32Array;
  values: Float32Array;
  /** AdaGrad's sum of squared gradients per offset. */
  grads: Float32Array;
  /** How many (dataset, head) pairs have one. */
  pairs: number;
}

/**
 * Offsets for every (dataset, head) pair with at least `minEach` positive and negative training
 * rows. Each starts at its dataset's log-odds for the head less the log-odds of all the head's
 * rows, as the loss weighs them (row weight, times `positiveWeight` for a positive): started at 0,
 * one offset learns the base rate far slower than the many feature rows of a source's style words,
 * which then keep it.
 */
export function sourceOffsets(corpus: Corpus, rows: Uint32Array, heads: readonly number[], minEach: number, positiveWeight: ArrayLike<number>): SourceOffsets {
  const H = CATEGORY_IDS.length, K = heads.length, D = corpus.datasets.length;
  const pos = new Uint32Array(D * K), neg = new Uint32Array(D * K);
  const posMass = new Float64Array(D * K), negMass = new Float64Array(D * K);
  for (const r of rows) {
    const d = corpus.dataset[r]!, w = corpus.weight[r]!;
    for (let k = 0; k < K; k++) {
      const y = corpus.labels[r * H + heads[k]!]!;
      if (y === 1) { pos[d * K + k]!++; posMass[d * K + k]! += w * positiveWeight[k]!; }
      else if (y === 0) { neg[d * K + k]!++; negMass[d * K + k]! += w; }
    }
  }
  const logOdds = (p: number, n: number): number => Math.log(Math.max(p, 1e-9) / Math.max(n, 1e-9));
  const overall = Array.from({ length: K }, (_, k) => {
    let p = 0, n = 0;
    for (let d = 0; d < D; d++) { p += posMass[d * K + k]!; n += negMass[d * K + k]!; }
    return logOdds(p, n);
  });
  const slot = new Int32Array(D * K).fill(-1);
  const start: number[] = [];
  for (let i = 0; i < D * K; i++) {
    if (pos[i]! < minEach || neg[i]! < minEach) continue;
    slot[i] = start.length;
    start.push(logOdds(posMass[i]!, negMass[i]!) - overall[i % K]!);
  }
  return { slot, values: Float32Array.from(start), grads: new Float32Array(start.length), pairs: start.length };
}
