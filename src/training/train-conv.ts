import { CATEGORY_IDS } from "../classifiers/categories.js";
import { CONV_WIDTH, createConvScorer } from "../classifiers/model/conv-scorer.js";
import type { Corpus } from "./corpus.js";
import { createPrng, shuffleInPlace } from "./prng.js";
import { positiveWeights, quantizeClipped, type TrainedModel, type TrainOptions } from "./trainer.js";

/**
 * The word-order family (src/classifiers/model/conv-scorer.ts): the embedding-bag MLP plus a width-3
 * convolution over token vectors, max-pooled; both feed the heads. Same masked loss, positive weights
 * and AdaGrad as the MLP. Needs corpus.sequences.
 */
export function trainConv(corpus: Corpus, rows: Uint32Array, buckets: number, opts: TrainOptions & { dim?: number; hidden?: number; filters?: number; lr?: number }): TrainedModel {
  const seq = corpus.sequences;
  if (!seq) throw new Error("the conv family needs token sequences (buildCorpus with sequences: true)");
  const H = CATEGORY_IDS.length;
  const K = opts.heads.length;
  const D = opts.dim ?? 32;
  const M = opts.hidden ?? 48;
  const F = opts.filters ?? 32;
  const W = M + F;
  const lr = opts.lr ?? 0.05;
  const rand = createPrng(opts.seed);
  const init = (n: number, s: number): Float32Array => Float32Array.from({ length: n }, () => (rand() * 2 - 1) * s);
  const emb = init(buckets * D, 0.1);
  const w1 = init(M * D, Math.sqrt(6 / (M + D)));
  const b1 = new Float32Array(M).fill(0.01);
  const wc = init(CONV_WIDTH * F * D, Math.sqrt(6 / (CONV_WIDTH * D + F)));
  const bc = new Float32Array(F).fill(0.01);
  const w2 = init(K * W, Math.sqrt(6 / (K + W)));
  const b2 = new Float32Array(K);
  const gEmb = new Float32Array(buckets * D);
  const gW1 = new Float32Array(M * D), gB1 = new Float32Array(M), gW2 = new Float32Array(K * W), gB2 = new Float32Array(K);
  const gWc = new Float32Array(wc.length), gBc = new Float32Array(F);
  const posW = positiveWeights(corpus, rows, opts.heads);
  const order = Uint32Array.from(rows);
  const h0 = new Float64Array(D), h1 = new Float64Array(M), dz = new Float64Array(K), dh1 = new Float64Array(M), dh0 = new Float64Array(D);
  const pooled = new Float64Array(F), argmax = new Int32Array(F), dg = new Float64Array(F);
  let vecs = new Float64Array(256 * D);
  let dv = new Float64Array(256 * D);
  let proj = new Float64Array(256 * CONV_WIDTH * F);
  // Row-local ids of distinct words: localOf[word] (-1 outside the row being trained), rowWords[j].
  const localOf = new Int32Array(seq.wordOffsets.length).fill(-1);
  const rowWords = new Uint32Array(1024);
  let local = new Int32Array(256);
  const step = (p: Float32Array, g: Float32Array, k: number, grad: number): void => {
    g[k]! += grad * grad;
    p[k]! -= (lr * grad) / Math.sqrt(g[k]! + 1e-8);
  };
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    shuffleInPlace(order, rand);
    for (const r of order) {
      let any = false;
      for (let k = 0; k < K; k++) if (corpus.labels[r * H + opts.heads[k]!]! >= 0) any = true;
      if (!any) continue;
      // Bag half, as the MLP.
      const from = corpus.offsets[r]!, to = corpus.offsets[r + 1]!;
      const norm = 1 / Math.sqrt(Math.max(1, to - from));
      h0.fill(0);
      for (let i = from; i < to; i++) {
        const base = corpus.feats[i]! * D;
        for (let d = 0; d < D; d++) h0[d]! += emb[base + d]!;
      }
      for (let d = 0; d < D; d++) h0[d]! *= norm;
      for (let m = 0; m < M; m++) {
        let s = b1[m]!;
        for (let d = 0; d < D; d++) s += w1[m * D + d]! * h0[d]!;
        h1[m] = s > 0 ? s : 0;
      }
      // Conv half: each distinct word's vector and its projection through the three offsets
      // (computed once per word, as the scorer does), then every position's filters, max-pooled.
      const sFrom = seq.offsets[r]!, T = seq.offsets[r + 1]! - sFrom;
      if (local.length < T) local = new Int32Array(2 * T);
      let U = 0;
      for (let t = 0; t < T; t++) {
        const u = seq.tokens[sFrom + t]!;
        let j = localOf[u]!;
        if (j < 0) {
          j = U++;
          localOf[u] = j;
          rowWords[j] = u;
        }
        local[t] = j;
      }
      for (let j = 0; j < U; j++) localOf[rowWords[j]!] = -1;
      if (vecs.length < U * D) {
        vecs = new Float64Array(2 * U * D);
        dv = new Float64Array(2 * U * D);
        proj = new Float64Array(2 * U * CONV_WIDTH * F);
      }
      for (let j = 0; j < U; j++) {
        const u = rowWords[j]!;
        const a = seq.wordOffsets[u]!, b = seq.wordOffsets[u + 1]!;
        const vn = 1 / Math.sqrt(Math.max(1, b - a));
        const at = j * D;
        for (let d = 0; d < D; d++) vecs[at + d] = 0;
        for (let i = a; i < b; i++) {
          const base = seq.wordFeats[i]! * D;
          for (let d = 0; d < D; d++) vecs[at + d]! += emb[base + d]!;
        }
        for (let d = 0; d < D; d++) vecs[at + d]! *= vn;
        const pj = j * CONV_WIDTH * F;
        for (let kf = 0; kf < CONV_WIDTH * F; kf++) {
          const wb = kf * D;
          let z = 0;
          for (let d = 0; d < D; d++) z += wc[wb + d]! * vecs[at + d]!;
          proj[pj + kf] = z;
        }
      }
      pooled.fill(0);
      argmax.fill(-1);
      for (let t = 0; t < T; t++) {
        const mid = local[t]! * CONV_WIDTH * F + F;
        const left = t > 0 ? local[t - 1]! * CONV_WIDTH * F : -1;
        const right = t + 1 < T ? local[t + 1]! * CONV_WIDTH * F + 2 * F : -1;
        for (let f = 0; f < F; f++) {
          let z = bc[f]! + proj[mid + f]!;
          if (left >= 0) z += proj[left + f]!;
          if (right >= 0) z += proj[right + f]!;
          if (z > pooled[f]!) {
            pooled[f] = z;
            argmax[f] = t;
          }
        }
      }
      for (let k = 0; k < K; k++) {
        const y = corpus.labels[r * H + opts.heads[k]!]!;
        if (y < 0) { dz[k] = 0; continue; }
        let s = b2[k]!;
        for (let m = 0; m < M; m++) s += w2[k * W + m]! * h1[m]!;
        for (let f = 0; f < F; f++) s += w2[k * W + M + f]! * pooled[f]!;
        const p = 1 / (1 + Math.exp(-s));
        dz[k] = (p - y) * corpus.weight[r]! * (y === 1 ? posW[k]! : 1);
      }
      dh1.fill(0);
      dg.fill(0);
      for (let k = 0; k < K; k++) {
        if (dz[k] === 0) continue;
        for (let m = 0; m < M; m++) {
          dh1[m]! += dz[k]! * w2[k * W + m]!;
          step(w2, gW2, k * W + m, dz[k]! * h1[m]!);
        }
        for (let f = 0; f < F; f++) {
          dg[f]! += dz[k]! * w2[k * W + M + f]!;
          step(w2, gW2, k * W + M + f, dz[k]! * pooled[f]!);
        }
        step(b2, gB2, k, dz[k]!);
      }
      dh0.fill(0);
      for (let m = 0; m < M; m++) {
        if (h1[m] === 0 || dh1[m] === 0) continue;
        for (let d = 0; d < D; d++) {
          dh0[d]! += dh1[m]! * w1[m * D + d]!;
          step(w1, gW1, m * D + d, dh1[m]! * h0[d]!);
        }
        step(b1, gB1, m, dh1[m]!);
      }
      for (let i = from; i < to; i++) {
        const base = corpus.feats[i]! * D;
        for (let d = 0; d < D; d++) if (dh0[d] !== 0) step(emb, gEmb, base + d, dh0[d]! * norm);
      }
      // Back through the max: only each filter's winning position gets a gradient.
      dv.fill(0, 0, U * D);
      for (let f = 0; f < F; f++) {
        const t0 = argmax[f]!;
        if (t0 < 0 || dg[f] === 0) continue;
        const g = dg[f]!;
        for (let k = 0; k < CONV_WIDTH; k++) {
          const tt = t0 + k - 1;
          if (tt < 0 || tt >= T) continue;
          const wb = (k * F + f) * D, vb = local[tt]! * D;
          for (let d = 0; d < D; d++) {
            dv[vb + d]! += g * wc[wb + d]!;
            step(wc, gWc, wb + d, g * vecs[vb + d]!);
          }
        }
        step(bc, gBc, f, g);
      }
      for (let j = 0; j < U; j++) {
        const at = j * D;
        let nonzero = false;
        for (let d = 0; d < D; d++) if (dv[at + d] !== 0) nonzero = true;
        if (!nonzero) continue;
        const u = rowWords[j]!;
        const a = seq.wordOffsets[u]!, b = seq.wordOffsets[u + 1]!;
        const vn = 1 / Math.sqrt(Math.max(1, b - a));
        for (let i = a; i < b; i++) {
          const base = seq.wordFeats[i]! * D;
          for (let d = 0; d < D; d++) if (dv[at + d] !== 0) step(emb, gEmb, base + d, dv[at + d]! * vn);
        }
      }
    }
  }
  const { q, scale } = quantizeClipped(emb);
  return {
    family: "conv",
    tensors: { emb: q, w1, b1, wc, bc, w2, b2 },
    params: { dim: D, hidden: M, filters: F, embScale: scale },
    scorer: createConvScorer({ buckets, heads: K, dim: D, hidden: M, filters: F, emb: q, embScale: scale, w1, b1, wc, bc, w2, b2 }),
  };
}
