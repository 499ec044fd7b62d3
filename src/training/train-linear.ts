import { CATEGORY_IDS } from "../classifiers/categories.js";
import { createLinearScorer } from "../classifiers/model/scorers.js";
import type { Corpus } from "./corpus.js";
import { createPrng, shuffleInPlace } from "./prng.js";
import { positiveWeights, quantizeClipped, type TrainedModel, type TrainOptions } from "./trainer.js";

/**
 * One-vs-rest logistic regression on hashed binary n-grams, AdaGrad, masked loss: a row only
 * trains the heads its dataset labels. The strong linear baseline.
 */
export function trainLinear(corpus: Corpus, rows: Uint32Array, buckets: number, opts: TrainOptions & { lr?: number; l2?: number }): TrainedModel {
  const H = CATEGORY_IDS.length;
  const K = opts.heads.length;
  const lr = opts.lr ?? 0.2;
  const l2 = opts.l2 ?? 1e-6;
  const w = new Float32Array(buckets * K);
  const g2 = new Float32Array(buckets * K);
  const bias = new Float64Array(K);
  const bg2 = new Float64Array(K).fill(1e-8);
  const posW = positiveWeights(corpus, rows, opts.heads);
  const order = Uint32Array.from(rows);
  const rand = createPrng(opts.seed);
  const z = new Float64Array(K);
  const grad = new Float64Array(K);
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    shuffleInPlace(order, rand);
    for (const r of order) {
      const from = corpus.offsets[r]!;
      const to = corpus.offsets[r + 1]!;
      const norm = 1 / Math.sqrt(Math.max(1, to - from));
      z.fill(0);
      for (let i = from; i < to; i++) {
        const base = corpus.feats[i]! * K;
        for (let h = 0; h < K; h++) z[h]! += w[base + h]!;
      }
      let any = false;
      for (let h = 0; h < K; h++) {
        const y = corpus.labels[r * H + opts.heads[h]!]!;
        if (y < 0) {
          grad[h] = 0;
          continue;
        }
        any = true;
        const p = 1 / (1 + Math.exp(-(bias[h]! + z[h]! * norm)));
        grad[h] = (p - y) * corpus.weight[r]! * (y === 1 ? posW[h]! : 1);
        bg2[h]! += grad[h]! * grad[h]!;
        bias[h]! -= (lr * grad[h]!) / Math.sqrt(bg2[h]!);
      }
      if (!any) continue;
      for (let i = from; i < to; i++) {
        const base = corpus.feats[i]! * K;
        for (let h = 0; h < K; h++) {
          if (grad[h] === 0) continue;
          const k = base + h;
          const g = grad[h]! * norm + l2 * w[k]!;
          g2[k]! += g * g;
          w[k]! -= (lr * g) / Math.sqrt(g2[k]! + 1e-8);
        }
      }
    }
  }
  const qw = new Int8Array(buckets * K);
  const scale = new Float32Array(K);
  for (let h = 0; h < K; h++) {
    const { q, scale: s } = quantizeClipped(w, K, h);
    scale[h] = s;
    for (let b = 0; b < buckets; b++) qw[b * K + h] = q[b]!;
  }
  const biasF = Float32Array.from(bias);
  return {
    family: "linear",
    tensors: { w: qw, scale, bias: biasF },
    params: {},
    scorer: createLinearScorer({ buckets, heads: K, w: qw, scale, bias: biasF }),
  };
}
