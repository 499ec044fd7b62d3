import type { Corpus } from "./corpus.js";
import { createPrng } from "./prng.js";

/**
 * Self-supervised pretraining of the feature table, fastText's skip-gram with subwords: a word's
 * vector is the mean of its buckets (unigram and character n-grams, the features the classifier
 * hashes), trained with negative sampling to predict the words around it. No labels are read.
 *
 * Why: the supervised bag learns a bucket only from rows whose source labels some head, so a word
 * that no labelled row uses (or uses rarely) keeps its random vector, and a held-out dataset full of
 * such words scores near chance. Co-occurrence gives those words a vector near the words they are
 * used like ("moron" near "idiot"), which the learned layers above then read the same way. The
 * scorer, the model file and inference are unchanged: only the table's starting point differs.
 */
export interface PretrainOptions {
  dim: number;
  epochs: number;
  seed: number;
  /** Context words on each side: each centre draws a width in 1..window, as word2vec does. */
  window?: number;
  /** Negative samples per (centre, context) pair. */
  negatives?: number;
  /** SGD step, decayed linearly to 0 over the run. */
  lr?: number;
  /** Frequent words are skipped with word2vec's rule (keep sqrt(t/f) + t/f), so "the" does not dominate. */
  subsample?: number;
}

export interface PretrainedTable {
  /** buckets x dim, only meaningful where `touched` is 1. */
  vectors: Float32Array;
  /** 1 for every bucket some training word hashed to. */
  touched: Uint8Array;
  tokens: number;
  seconds: number;
}

const NEGATIVE_TABLE = 1 << 22;

export function pretrainBuckets(corpus: Corpus, rows: Uint32Array, buckets: number, opts: PretrainOptions): PretrainedTable {
  const seq = corpus.sequences;
  if (!seq) throw new Error("pretraining needs token sequences (buildCorpus with sequences: true)");
  const started = Date.now();
  const D = opts.dim;
  const window = opts.window ?? 4;
  const negatives = opts.negatives ?? 5;
  const lr0 = opts.lr ?? 0.05;
  const t = opts.subsample ?? 1e-4;
  const rand = createPrng((opts.seed ^ 0x5eed7ab1) >>> 0);
  const words = seq.wordOffsets.length - 1;

  // Word frequencies over the training rows only: a held-out dataset's text is never read.
  const count = new Float64Array(words);
  let total = 0;
  for (const r of rows) for (let i = seq.offsets[r]!; i < seq.offsets[r + 1]!; i++) { count[seq.tokens[i]!]!++; total++; }
  const keep = Float32Array.from(count, (c) => (c === 0 ? 0 : Math.min(1, Math.sqrt((t * total) / c) + (t * total) / c)));
  const negativeTable = unigramTable(count);

  const input = new Float32Array(buckets * D);
  const touched = new Uint8Array(buckets);
  for (let w = 0; w < words; w++) {
    if (count[w] === 0) continue;
    for (let i = seq.wordOffsets[w]!; i < seq.wordOffsets[w + 1]!; i++) {
      const b = seq.wordFeats[i]!;
      if (touched[b]) continue;
      touched[b] = 1;
      for (let d = 0; d < D; d++) input[b * D + d] = (rand() * 2 - 1) / D;
    }
  }
  const output = new Float32Array(words * D);
  const hidden = new Float32Array(D), grad = new Float32Array(D);
  const kept = new Uint32Array(512);
  const steps = opts.epochs * total;
  let done = 0;
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    for (const r of rows) {
      const from = seq.offsets[r]!, to = seq.offsets[r + 1]!;
      let n = 0;
      for (let i = from; i < to && n < kept.length; i++) if (rand() < keep[seq.tokens[i]!]!) kept[n++] = seq.tokens[i]!;
      done += to - from;
      const lr = lr0 * Math.max(0.0001, 1 - done / steps);
      for (let c = 0; c < n; c++) {
        const centre = kept[c]!;
        const fFrom = seq.wordOffsets[centre]!, fTo = seq.wordOffsets[centre + 1]!;
        hidden.fill(0);
        for (let i = fFrom; i < fTo; i++) {
          const base = seq.wordFeats[i]! * D;
          for (let d = 0; d < D; d++) hidden[d]! += input[base + d]!;
        }
        const inv = 1 / (fTo - fFrom);
        for (let d = 0; d < D; d++) hidden[d]! *= inv;
        grad.fill(0);
        const width = 1 + Math.floor(rand() * window);
        for (let o = Math.max(0, c - width); o <= Math.min(n - 1, c + width); o++) {
          if (o === c) continue;
          for (let k = 0; k <= negatives; k++) {
            const target = k === 0 ? kept[o]! : negativeTable[Math.floor(rand() * NEGATIVE_TABLE)]!;
            if (k > 0 && target === kept[o]) continue;
            const base = target * D;
            let s = 0;
            for (let d = 0; d < D; d++) s += hidden[d]! * output[base + d]!;
            const p = s > 8 ? 1 : s < -8 ? 0 : 1 / (1 + Math.exp(-s));
            const g = lr * ((k === 0 ? 1 : 0) - p);
            for (let d = 0; d < D; d++) {
              grad[d]! += g * output[base + d]!;
              output[base + d]! += g * hidden[d]!;
            }
          }
        }
        for (let i = fFrom; i < fTo; i++) {
          const base = seq.wordFeats[i]! * D;
          for (let d = 0; d < D; d++) input[base + d]! += grad[d]!;
        }
      }
    }
  }
  return { vectors: input, touched, tokens: total, seconds: (Date.now() - started) / 1000 };
}

/** Word ids repeated in proportion to count^0.75 (word2vec's noise distribution). */
function unigramTable(count: Float64Array): Uint32Array {
  let z = 0;
  for (const c of count) z += c ** 0.75;
  const table = new Uint32Array(NEGATIVE_TABLE);
  let w = 0;
  let cumulative = count.length > 0 ? count[0]! ** 0.75 / z : 1;
  for (let i = 0; i < NEGATIVE_TABLE; i++) {
    while ((i + 0.5) / NEGATIVE_TABLE > cumulative && w < count.length - 1) cumulative += count[++w]! ** 0.75 / z;
    table[i] = w;
  }
  return table;
}

/**
 * The pretrained vectors of touched buckets, centred and rescaled to a root-mean-square of `rms` per
 * coordinate. Skip-gram vectors share a large common component (every word predicts "the"): it says
 * nothing about a word, and left in it would push every text's bag the same way.
 */
export function scaledPretrained(table: PretrainedTable, dim: number, rms: number): PretrainedTable {
  const mean = new Float64Array(dim);
  let n = 0;
  for (let b = 0; b < table.touched.length; b++) {
    if (!table.touched[b]) continue;
    for (let d = 0; d < dim; d++) mean[d]! += table.vectors[b * dim + d]!;
    n++;
  }
  for (let d = 0; d < dim; d++) mean[d]! /= Math.max(1, n);
  const vectors = new Float32Array(table.vectors.length);
  let sum = 0;
  for (let b = 0; b < table.touched.length; b++) {
    if (!table.touched[b]) continue;
    for (let d = 0; d < dim; d++) sum += (vectors[b * dim + d] = table.vectors[b * dim + d]! - mean[d]!) ** 2;
  }
  const factor = n > 0 && sum > 0 ? rms / Math.sqrt(sum / (n * dim)) : 1;
  for (let i = 0; i < vectors.length; i++) vectors[i]! *= factor;
  return { ...table, vectors };
}
