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
  const bag = (features: Uint32Array): Float64Array => {
    const h0 = new Float64Array(dim);
    for (let i = 0; i < features.length; i++) {
      const base = features[i]! * dim;
      for (let d = 0; d < dim; d++) h0[d]! += emb[base + d]!;
    }
    const norm = embScale / Math.sqrt(Math.max(1, features.length));
    for (let d = 0; d < dim; d++) h0[d]! *= norm;
    return h0;
  };
  let cache: { window: Uint32Array; head: number; grad: Float64Array } | undefined;
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
