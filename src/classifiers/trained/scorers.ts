import type { TokenFeatures } from "./features.js";

/**
 * The two model families compared in training, as pure scoring functions over hashed features.
 * Both turn a window's distinct feature buckets into one raw logit per trained head.
 */
export interface Scorer {
  readonly heads: number;
  /** Raw (uncalibrated) logits of one window. */
  logits(features: Uint32Array, out: Float64Array): void;
  /**
   * How much a subset of the window's features (one token's) pushes each head's logit: exact for the
   * linear model, first-order (gradient x input) for the network. Used for explanations only.
   */
  attribution(window: Uint32Array, subset: readonly number[], head: number): number;
  /**
   * The same attribution for every token [tFrom, tTo) of a window at once: per-token work (embedding
   * sums, hidden layer) is done once and shared by every head asked about. Returns, per head, one
   * value per token (index t - tFrom); equal to attribution() with that token's features.
   */
  explainer(window: Uint32Array, tf: TokenFeatures, tFrom: number, tTo: number): (head: number) => Float64Array;
}

export interface LinearWeights {
  buckets: number;
  heads: number;
  /** Quantised weights, bucket-major: w[bucket * heads + head] * scale[head]. */
  w: Int8Array;
  scale: Float32Array;
  bias: Float32Array;
}

export function createLinearScorer(m: LinearWeights): Scorer {
  const { heads, w, scale, bias } = m;
  return {
    heads,
    logits(features, out) {
      const acc = new Float64Array(heads);
      for (let i = 0; i < features.length; i++) {
        const base = features[i]! * heads;
        for (let h = 0; h < heads; h++) acc[h]! += w[base + h]!;
      }
      const norm = 1 / Math.sqrt(Math.max(1, features.length));
      for (let h = 0; h < heads; h++) out[h] = bias[h]! + acc[h]! * scale[h]! * norm;
    },
    attribution(window, subset, head) {
      let sum = 0;
      for (const f of subset) sum += w[f * heads + head]!;
      return (sum * scale[head]!) / Math.sqrt(Math.max(1, window.length));
    },
    explainer(window, tf, tFrom, tTo) {
      const cache = new Map<number, Float64Array>();
      return (head) => {
        let out = cache.get(head);
        if (out) return out;
        out = new Float64Array(tTo - tFrom);
        for (let t = tFrom; t < tTo; t++) {
          let sum = 0;
          for (let i = tf.from[t]!, e = tf.to[t]!; i < e; i++) sum += w[tf.feats[i]! * heads + head]!;
          out[t - tFrom] = (sum * scale[head]!) / Math.sqrt(Math.max(1, window.length));
        }
        cache.set(head, out);
        return out;
      };
    },
  };
}

export interface MlpWeights {
  buckets: number;
  heads: number;
  dim: number;
  hidden: number;
  /** Quantised embeddings, bucket-major: emb[bucket * dim + d] * embScale. */
  emb: Int8Array;
  embScale: number;
  /** hidden x dim, hidden, heads x hidden, heads */
  w1: Float32Array;
  b1: Float32Array;
  w2: Float32Array;
  b2: Float32Array;
}

/** fastText-style embedding bag with one ReLU hidden layer shared by all heads. */
export function createMlpScorer(m: MlpWeights): Scorer {
  const { heads, dim, hidden, emb, embScale, w1, b1, w2, b2 } = m;
  // Sums of int8 embeddings are integers: accumulate in int32 (exact, and faster than float64).
  const acc = new Int32Array(dim);
  const bag = (features: Uint32Array): Float64Array => {
    acc.fill(0);
    for (let i = 0; i < features.length; i++) {
      const base = features[i]! * dim;
      for (let d = 0; d < dim; d++) acc[d]! += emb[base + d]!;
    }
    const h0 = new Float64Array(dim);
    const norm = embScale / Math.sqrt(Math.max(1, features.length));
    for (let d = 0; d < dim; d++) h0[d] = acc[d]! * norm;
    return h0;
  };
  let cache: { window: Uint32Array; head: number; grad: Float64Array } | undefined;
  // Hidden activations of scored windows, keyed by the features array (collected with it).
  const hiddenCache = new WeakMap<Uint32Array, Float64Array>();
  const hiddenOf = (h0: Float64Array): Float64Array => {
    const h1 = new Float64Array(hidden);
    for (let k = 0; k < hidden; k++) {
      let s = b1[k]!;
      for (let d = 0; d < dim; d++) s += w1[k * dim + d]! * h0[d]!;
      h1[k] = s > 0 ? s : 0;
    }
    return h1;
  };
  return {
    heads,
    logits(features, out) {
      const h1 = hiddenOf(bag(features));
      hiddenCache.set(features, h1);
      for (let h = 0; h < heads; h++) {
        let s = b2[h]!;
        for (let k = 0; k < hidden; k++) s += w2[h * hidden + k]! * h1[k]!;
        out[h] = s;
      }
    },
    attribution(window, subset, head) {
      // Explanations ask once per token of the same window: reuse its hidden layer and gradient.
      if (cache?.window !== window || cache.head !== head) {
        const h1 = hiddenOf(bag(window));
        const grad = new Float64Array(dim);
        for (let d = 0; d < dim; d++) {
          let g = 0;
          for (let k = 0; k < hidden; k++) if (h1[k]! > 0) g += w2[head * hidden + k]! * w1[k * dim + d]!;
          grad[d] = g;
        }
        cache = { window, head, grad };
      }
      const { grad } = cache;
      const norm = embScale / Math.sqrt(Math.max(1, window.length));
      let total = 0;
      for (let d = 0; d < dim; d++) {
        let part = 0;
        for (const f of subset) part += emb[f * dim + d]!;
        total += grad[d]! * part * norm;
      }
      return total;
    },
    explainer(window, tf, tFrom, tTo) {
      const T = tTo - tFrom;
      // Per-word embedding sums (integers, so exact), computed once per distinct word and shared by every head.
      const row = new Int32Array(tf.words).fill(-1);
      const rowOf = new Uint32Array(T);
      let rows = 0;
      for (let t = tFrom; t < tTo; t++) {
        const w = tf.word[t]!;
        if (row[w] === -1) row[w] = rows++;
        rowOf[t - tFrom] = row[w]!;
      }
      const vecs = new Float64Array(rows * dim);
      const done = new Uint8Array(rows);
      for (let t = tFrom; t < tTo; t++) {
        const r = rowOf[t - tFrom]!;
        if (done[r]) continue;
        done[r] = 1;
        const at = r * dim;
        for (let i = tf.from[t]!, e = tf.to[t]!; i < e; i++) {
          const base = tf.feats[i]! * dim;
          for (let d = 0; d < dim; d++) vecs[at + d]! += emb[base + d]!;
        }
      }
      // The engine scored this window already: reuse its hidden layer.
      const h1 = hiddenCache.get(window) ?? hiddenOf(bag(window));
      const norm = embScale / Math.sqrt(Math.max(1, window.length));
      const cache = new Map<number, Float64Array>();
      return (head) => {
        let out = cache.get(head);
        if (out) return out;
        const grad = new Float64Array(dim);
        for (let d = 0; d < dim; d++) {
          let g = 0;
          for (let k = 0; k < hidden; k++) if (h1[k]! > 0) g += w2[head * hidden + k]! * w1[k * dim + d]!;
          grad[d] = g;
        }
        const perRow = new Float64Array(rows);
        for (let r = 0; r < rows; r++) {
          let total = 0;
          for (let d = 0; d < dim; d++) total += grad[d]! * vecs[r * dim + d]! * norm;
          perRow[r] = total;
        }
        out = new Float64Array(T);
        for (let t = 0; t < T; t++) out[t] = perRow[rowOf[t]!]!;
        cache.set(head, out);
        return out;
      };
    },
  };
}

/** Symmetric int8 quantisation of a float array with one scale (max |x| maps to 127). */
export function quantize(values: Float32Array | Float64Array): { q: Int8Array; scale: number } {
  let max = 0;
  for (const v of values) max = Math.max(max, Math.abs(v));
  const scale = max > 0 ? max / 127 : 1;
  const q = new Int8Array(values.length);
  for (let i = 0; i < values.length; i++) q[i] = Math.round(values[i]! / scale);
  return { q, scale };
}
