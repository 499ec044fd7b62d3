import type { TokenFeatures } from "./features.js";
import { createMlpScorer, type MlpWeights, type Scorer } from "./scorers.js";
import { newFloat64Array } from "./typed-slab.js";

/**
 * The word-order family: the embedding-bag MLP plus a 1-D convolution over the window's token
 * vectors (each token's vector is the mean of its unigram and char n-gram embeddings, the same int8
 * table the bag uses), width 3, ReLU, max-pooled over the window. The heads read the bag's hidden
 * layer and the pooled filters side by side, so "kill time" and "time to kill" differ.
 */
interface ConvWeights extends MlpWeights {
  filters: number;
  /** Convolution, [offset -1, 0, +1] x filters x dim, and its bias. */
  wc: Float32Array;
  bc: Float32Array;
  /** heads x (hidden + filters): the bag part first, then the pooled filters. */
  w2: Float32Array;
}

/** A scorer that needs the window's tokens (the conv family); the engine passes them when present. */
interface SequenceScorer extends Scorer {
  windowLogits(features: Uint32Array, tf: TokenFeatures, tFrom: number, tTo: number, out: Float64Array): void;
}

export const CONV_WIDTH = 3;

export function createConvScorer(m: ConvWeights): SequenceScorer {
  const { heads, dim, hidden, filters: F, emb, embScale, wc, bc, w2, b2 } = m;
  const width = hidden + F;
  // The bag half's hidden layer: the MLP scorer with an identity output layer returns it as is.
  const bagHeads = createMlpScorer({ ...m, heads: hidden, w2: identity(hidden), b2: new Float32Array(hidden) });
  const h1 = new Float64Array(hidden);
  let bagAttr: Scorer | undefined;
  const pooled = new Float64Array(F);
  const argmax = new Int32Array(F);
  // Per distinct word of the current text: its projection through the three conv offsets (3 x F).
  let projTf: TokenFeatures | undefined;
  let proj = new Float64Array(0);
  let projDone = new Uint8Array(0);
  const vec = new Float64Array(dim);
  const project = (tf: TokenFeatures, t: number): number => {
    const w = tf.word[t]!;
    const at = w * CONV_WIDTH * F;
    if (projDone[w]) return at;
    projDone[w] = 1;
    tokenVector(emb, embScale, dim, tf, t, vec);
    for (let k = 0; k < CONV_WIDTH; k++) {
      for (let f = 0; f < F; f++) {
        const base = (k * F + f) * dim;
        let s = 0;
        for (let d = 0; d < dim; d++) s += wc[base + d]! * vec[d]!;
        proj[at + k * F + f] = s;
      }
    }
    return at;
  };
  const prepare = (tf: TokenFeatures): void => {
    if (projTf === tf) return;
    projTf = tf;
    if (proj.length < tf.words * CONV_WIDTH * F) proj = new Float64Array(tf.words * CONV_WIDTH * F * 2);
    if (projDone.length < tf.words) projDone = new Uint8Array(tf.words * 2);
    projDone.fill(0, 0, tf.words);
  };
  /** Max-pooled filters of tokens [tFrom, tTo), zero padding at the window's edges. */
  const pool = (tf: TokenFeatures, tFrom: number, tTo: number): void => {
    prepare(tf);
    pooled.fill(0);
    argmax.fill(-1);
    for (let t = tFrom; t < tTo; t++) {
      const mid = project(tf, t) + F;
      const left = t > tFrom ? project(tf, t - 1) : -1;
      const right = t + 1 < tTo ? project(tf, t + 1) + 2 * F : -1;
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
  };
  const headsOut = (out: Float64Array): void => {
    for (let k = 0; k < heads; k++) {
      let s: number = b2[k]!;
      const row = k * width;
      for (let j = 0; j < hidden; j++) s += w2[row + j]! * h1[j]!;
      for (let f = 0; f < F; f++) s += w2[row + hidden + f]! * pooled[f]!;
      out[k] = s;
    }
  };
  const bagHidden = (features: Uint32Array): void => {
    bagHeads.logits(features, h1);
    for (let j = 0; j < hidden; j++) h1[j] = h1[j]! > 0 ? h1[j]! : 0;
  };
  const bagOnly = (features: Uint32Array, out: Float64Array): void => {
    bagHidden(features);
    pooled.fill(0);
    headsOut(out);
  };
  return {
    heads,
    logits: bagOnly,
    windowLogits(features, tf, tFrom, tTo, out) {
      bagHidden(features);
      pool(tf, tFrom, tTo);
      headsOut(out);
    },
    attribution(window, subset, head) {
      return bagPart(window).attribution(window, subset, head);
    },
    explainer(window, tf, tFrom, tTo) {
      // Bag part: the MLP's gradient x input through this head's bag weights. Conv part: each
      // winning position's pre-activation is linear in its three tokens' vectors, so each token
      // gets its exact share, weighted by the head's weight on that filter.
      const bag = bagPart(window).explainer(window, tf, tFrom, tTo);
      pool(tf, tFrom, tTo);
      const wins = Int32Array.from(argmax);
      const share = (head: number): Float64Array => {
        const out = newFloat64Array(tTo - tFrom);
        for (let f = 0; f < F; f++) {
          const t0 = wins[f]!;
          if (t0 < 0) continue;
          const wf = w2[head * width + hidden + f]!;
          for (let k = 0; k < CONV_WIDTH; k++) {
            const t = t0 + k - 1;
            if (t < tFrom || t >= tTo) continue;
            out[t - tFrom]! += wf * proj[project(tf, t) + k * F + f]!;
          }
        }
        return out;
      };
      const cache = new Map<number, Float64Array>();
      return (head) => {
        let out = cache.get(head);
        if (out) return out;
        const a = bag(head);
        const c = share(head);
        out = newFloat64Array(a.length);
        for (let i = 0; i < a.length; i++) out[i] = a[i]! + c[i]!;
        cache.set(head, out);
        return out;
      };
    },
  };

  /** An MLP scorer over the bag half, for its per-token attributions. */
  function bagPart(_window: Uint32Array): Scorer {
    return (bagAttr ??= createMlpScorer({ ...m, w2: bagW2(), b2 }));
  }
  function bagW2(): Float32Array {
    const out = new Float32Array(heads * hidden);
    for (let k = 0; k < heads; k++) out.set(w2.subarray(k * width, k * width + hidden), k * hidden);
    return out;
  }
}
function identity(n: number): Float32Array {
  const m = new Float32Array(n * n);
  for (let i = 0; i < n; i++) m[i * n + i] = 1;
  return m;
}

/** Token t's vector: the mean of its features' int8 embeddings, scaled, as float. */
function tokenVector(emb: Int8Array, embScale: number, dim: number, tf: TokenFeatures, t: number, out: Float64Array): void {
  out.fill(0);
  const from = tf.from[t]!, to = tf.to[t]!;
  for (let i = from; i < to; i++) {
    const base = tf.feats[i]! * dim;
    for (let d = 0; d < dim; d++) out[d]! += emb[base + d]!;
  }
  const norm = embScale / Math.sqrt(Math.max(1, to - from));
  for (let d = 0; d < dim; d++) out[d]! *= norm;
}

export function isSequenceScorer(s: Scorer): s is SequenceScorer {
  return typeof (s as Partial<SequenceScorer>).windowLogits === "function";
}
