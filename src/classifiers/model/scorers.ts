import type { TokenFeatures } from "./features.js";
import { newFloat64Array, newInt32Array, newUint32Array, newUint8Array } from "./typed-slab.js";
import { rowSummerFor } from "./wasm-row-table.js";
import { LITTLE_ENDIAN } from "./wasm-support.js";

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

interface LinearWeights {
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
  /**
   * Quantised embeddings, bucket-major: value d of bucket b's row is emb[b * rowStride + rowOffset + d]
   * times embScale. A network's own table has rowStride dim and rowOffset 0 (the defaults); members
   * of an ensemble read one table that holds their rows side by side (mlp-ensemble-scorer.ts).
   */
  emb: Int8Array;
  rowStride?: number;
  rowOffset?: number;
  embScale: number;
  /** hidden x dim, hidden, heads x hidden, heads */
  w1: Float32Array;
  b1: Float32Array;
  w2: Float32Array;
  b2: Float32Array;
}

/** An embedding-bag network's scorer (createMlpScorer). */
export interface MlpScorer extends Scorer {
  /**
   * logits() from a window's row sums already added up: sums[at, at + dim) are its features' rows
   * summed (mlp-ensemble-scorer.ts sums every member's side by side in one pass). The window counts
   * as scored, so explaining it reuses its hidden layer as after logits().
   */
  logitsOfSums(features: Uint32Array, sums: Int32Array, at: number, out: Float64Array): void;
  /**
   * logits() from a window's hidden layer already computed (h1: this network's ReLU(w1 h0 + b1), as
   * the ensemble's SIMD layer gives it); the window counts as scored, as after logitsOfSums().
   */
  logitsOfHidden(features: Uint32Array, h1: Float64Array, out: Float64Array): void;
}

/** fastText-style embedding bag with one ReLU hidden layer shared by all heads. */
export function createMlpScorer(m: MlpWeights): MlpScorer {
  const { heads, dim, hidden, emb, embScale, w1, b1, w2, b2 } = m;
  const stride = m.rowStride ?? dim;
  const offset = m.rowOffset ?? 0;
  // Sums of int8 embeddings are integers: accumulate in int32 (exact, and faster than float64).
  const acc = new Int32Array(dim);
  const sumRows = createRowSummer(emb, dim, stride, offset);
  // Input and hidden layer of the window being scored: scratch, as scoring is synchronous.
  const input = new Float64Array(dim);
  const hiddenScratch = new Float64Array(hidden);
  const bag = (features: Uint32Array, h0: Float64Array = newFloat64Array(dim)): Float64Array => {
    sumRows(features, 0, features.length, acc);
    return scaledBagInto(acc, 0, embScale, features.length, h0, 0, dim);
  };
  let cache: { window: Uint32Array; head: number; grad: Float64Array } | undefined;
  const hiddenOf = (h0: Float64Array, h1: Float64Array = newFloat64Array(hidden)): Float64Array => hiddenLayer(w1, b1, h0, h1);
  /**
   * d logit[head] / d input: the sum over active hidden units k of w2[head, k] * w1[k, d], in k order
   * per d as the plain loop adds them (so the same to the bit), four d at a time so their chains
   * of dependent additions overlap.
   */
  const gradient = (h1: Float64Array, head: number): Float64Array => {
    const grad = newFloat64Array(dim);
    const w2Row = head * hidden;
    let d = 0;
    for (; d + 4 <= dim; d += 4) {
      let g0 = 0, g1 = 0, g2 = 0, g3 = 0;
      for (let k = 0; k < hidden; k++) {
        if (!(h1[k]! > 0)) continue;
        const w = w2[w2Row + k]!;
        const at = k * dim + d;
        g0 += w * w1[at]!;
        g1 += w * w1[at + 1]!;
        g2 += w * w1[at + 2]!;
        g3 += w * w1[at + 3]!;
      }
      grad[d] = g0;
      grad[d + 1] = g1;
      grad[d + 2] = g2;
      grad[d + 3] = g3;
    }
    for (; d < dim; d++) {
      let g = 0;
      for (let k = 0; k < hidden; k++) if (h1[k]! > 0) g += w2[w2Row + k]! * w1[k * dim + d]!;
      grad[d] = g;
    }
    return grad;
  };
  // The last scored window: explanations usually ask about it (a short text has one window), and
  // then reuse its hidden layer instead of computing it again.
  let lastScored: Uint32Array | undefined;
  const logitsOfSums = (features: Uint32Array, sums: Int32Array, at: number, out: Float64Array): void => {
    const h1 = hiddenOf(scaledBagInto(sums, at, embScale, features.length, input, 0, dim), hiddenScratch);
    lastScored = features;
    affine(w2, b2, h1, heads, hidden, out);
  };
  return {
    heads,
    logits(features, out) {
      sumRows(features, 0, features.length, acc);
      logitsOfSums(features, acc, 0, out);
    },
    logitsOfSums,
    logitsOfHidden(features, h1, out) {
      hiddenScratch.set(h1);
      lastScored = features;
      affine(w2, b2, hiddenScratch, heads, hidden, out);
    },
    attribution(window, subset, head) {
      // The plain per-token form, which explainer() batches (tests hold the two equal).
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
        for (const f of subset) part += emb[f * stride + offset + d]!;
        total += grad[d]! * part * norm;
      }
      return total;
    },
    explainer(window, tf, tFrom, tTo) {
      const T = tTo - tFrom;
      // Per-word embedding sums (integers, so exact), computed once per distinct word and shared by every head.
      const row = newInt32Array(tf.words).fill(-1);
      const rowOf = newUint32Array(T);
      let rows = 0;
      for (let t = tFrom; t < tTo; t++) {
        const w = tf.word[t]!;
        if (row[w] === -1) row[w] = rows++;
        rowOf[t - tFrom] = row[w]!;
      }
      const vecs = newFloat64Array(rows * dim);
      const done = newUint8Array(rows);
      for (let t = tFrom; t < tTo; t++) {
        const r = rowOf[t - tFrom]!;
        if (done[r]) continue;
        done[r] = 1;
        sumRows(tf.feats, tf.from[t]!, tf.to[t]!, acc);
        vecs.set(acc, r * dim);
      }
      // The engine scored this window already, often last: reuse its hidden layer (a copy, as the
      // returned function may run after other windows are scored).
      const h1 = window === lastScored ? copyOf(hiddenScratch) : hiddenOf(bag(window));
      const norm = embScale / Math.sqrt(Math.max(1, window.length));
      const cache = new Map<number, Float64Array>();
      return (head) => {
        let out = cache.get(head);
        if (out) return out;
        const grad = gradient(h1, head);
        const perRow = newFloat64Array(rows);
        for (let r = 0; r < rows; r++) {
          let total = 0;
          for (let d = 0; d < dim; d++) total += grad[d]! * vecs[r * dim + d]! * norm;
          perRow[r] = total;
        }
        out = newFloat64Array(T);
        for (let t = 0; t < T; t++) out[t] = perRow[rowOf[t]!]!;
        cache.set(head, out);
        return out;
      };
    },
  };
}

/**
 * A window's bag, written to h0[to, to + dim): the integer sums sums[at, at + dim) of its `count`
 * features' rows, times embScale / sqrt(count). The sums are the network's own or its slice of
 * several networks' summed side by side (logitsOfSums), the same to the bit either way.
 */
export function scaledBagInto(sums: Int32Array, at: number, embScale: number, count: number, h0: Float64Array, to: number, dim: number): Float64Array {
  const norm = embScale / Math.sqrt(Math.max(1, count));
  for (let d = 0; d < dim; d++) h0[to + d] = sums[at + d]! * norm;
  return h0;
}

/** h1 = ReLU(w1 h0 + b1), w1 being h1.length x h0.length. */
function hiddenLayer(w1: Float32Array, b1: Float32Array, h0: Float64Array, h1: Float64Array): Float64Array {
  affine(w1, b1, h0, h1.length, h0.length, h1);
  for (let k = 0; k < h1.length; k++) h1[k] = h1[k]! > 0 ? h1[k]! : 0;
  return h1;
}

/**
 * out[r] = bias[r] + sum over c of m[r * cols + c] * x[c], each sum added up in column order, as the
 * plain loop does, so results are the same to the bit. Four rows at a time: their chains of
 * dependent additions then overlap instead of each waiting for the one before.
 */
export function affine(m: Float32Array, bias: Float32Array, x: Float64Array, rows: number, cols: number, out: Float64Array): void {
  let r = 0;
  for (; r + 4 <= rows; r += 4) {
    const a0 = r * cols, a1 = a0 + cols, a2 = a1 + cols, a3 = a2 + cols;
    let s0: number = bias[r]!, s1: number = bias[r + 1]!, s2: number = bias[r + 2]!, s3: number = bias[r + 3]!;
    for (let c = 0; c < cols; c++) {
      const v = x[c]!;
      s0 += m[a0 + c]! * v;
      s1 += m[a1 + c]! * v;
      s2 += m[a2 + c]! * v;
      s3 += m[a3 + c]! * v;
    }
    out[r] = s0;
    out[r + 1] = s1;
    out[r + 2] = s2;
    out[r + 3] = s3;
  }
  for (; r < rows; r++) {
    let s: number = bias[r]!;
    for (let c = 0; c < cols; c++) s += m[r * cols + c]! * x[c]!;
    out[r] = s;
  }
}

function copyOf(values: Float64Array): Float64Array {
  const copy = newFloat64Array(values.length);
  copy.set(values);
  return copy;
}

/** Adds up the int8 embedding rows of features[from, to) into `acc` (overwritten); exact integer sums. */
export type RowSummer = (features: Uint32Array, from: number, to: number, acc: Int32Array) => void;

/**
 * The embedding bag is most of a short text's scoring time. A table in WebAssembly memory
 * (allocateRowTable, as the default model's is) is summed with SIMD (wasm-row-table.ts). Otherwise
 * rows of 32 values (the default dim) or multiples are read a 32-bit word at a time
 * (packedRowSummer); other shapes, or a big-endian machine, byte by byte. Row b is emb[b * stride + offset ..][0..dim):
 * a table of its own (stride dim, offset 0) or one member's slice of rows kept side by side.
 */
export function createRowSummer(emb: Int8Array, dim: number, stride = dim, offset = 0): RowSummer {
  const simd = rowSummerFor(emb, dim, stride, offset);
  if (simd) return simd;
  if (dim % 32 !== 0 || stride % 4 !== 0 || offset % 4 !== 0 || !LITTLE_ENDIAN) return plainRowSummer(emb, dim, stride, offset);
  // A view needs a 4-byte aligned offset; model-file.ts aligns tensors, but copy if handed a stray view.
  const bytes = emb.byteOffset % 4 === 0 ? emb : emb.slice();
  return packedRowSummer(new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2), dim, stride >> 2, offset >> 2);
}

function plainRowSummer(emb: Int8Array, dim: number, stride: number, offset: number): RowSummer {
  return (features, from, to, acc) => {
    acc.fill(0);
    for (let i = from; i < to; i++) {
      const base = features[i]! * stride + offset;
      for (let d = 0; d < dim; d++) acc[d]! += emb[base + d]!;
    }
  };
}

/** Rows summed between two unpackings: 128 values of at most 255 keep the upper lane under 2^15, so sums stay small ints. */
const LANE_ROWS = 128;
const BYTE_BIAS = 0x80808080 | 0;
const LOW_BYTES = 0x00ff00ff;

/**
 * Sums rows four int8 values (one little-endian int32 word) at a time, SIMD within a register: each
 * byte is biased to unsigned (x ^ 0x80 = x + 128), the even and odd bytes of a word add into two
 * 16-bit lanes, and every LANE_ROWS rows the lanes are unpacked and the bias taken off again.
 * Integer arithmetic throughout, so the sums equal the byte-by-byte ones exactly. The eight words of
 * a 32-value block are spelled out so their sixteen accumulators stay in registers.
 */
function packedRowSummer(words: Int32Array, dim: number, strideWords: number, offsetWords: number): RowSummer {
  const perRow = dim >> 2;
  // biome-ignore lint/correctness/noUnusedVariables: written, never read, so the loads that warm the cache are not optimised away
  let touched = 0;
  return (features, first, end, acc) => {
    acc.fill(0);
    // Touch every row first: these loads do not depend on each other, so their cache misses overlap
    // instead of queueing behind the summing loop, which then finds its rows in cache. (The result
    // is kept so the loads are not optimised away.)
    let touch = 0;
    for (let i = first; i < end; i++) touch ^= words[features[i]! * strideWords + offsetWords]!;
    touched ^= touch;
    for (let block = 0; block < perRow; block += 8) {
      for (let from = first; from < end; from += LANE_ROWS) {
        const to = Math.min(end, from + LANE_ROWS);
        let e0 = 0, o0 = 0, e1 = 0, o1 = 0, e2 = 0, o2 = 0, e3 = 0, o3 = 0;
        let e4 = 0, o4 = 0, e5 = 0, o5 = 0, e6 = 0, o6 = 0, e7 = 0, o7 = 0;
        for (let i = from; i < to; i++) {
          const base = features[i]! * strideWords + offsetWords + block;
          const w0 = words[base]! ^ BYTE_BIAS, w1 = words[base + 1]! ^ BYTE_BIAS;
          const w2 = words[base + 2]! ^ BYTE_BIAS, w3 = words[base + 3]! ^ BYTE_BIAS;
          const w4 = words[base + 4]! ^ BYTE_BIAS, w5 = words[base + 5]! ^ BYTE_BIAS;
          const w6 = words[base + 6]! ^ BYTE_BIAS, w7 = words[base + 7]! ^ BYTE_BIAS;
          e0 += w0 & LOW_BYTES; o0 += (w0 >>> 8) & LOW_BYTES;
          e1 += w1 & LOW_BYTES; o1 += (w1 >>> 8) & LOW_BYTES;
          e2 += w2 & LOW_BYTES; o2 += (w2 >>> 8) & LOW_BYTES;
          e3 += w3 & LOW_BYTES; o3 += (w3 >>> 8) & LOW_BYTES;
          e4 += w4 & LOW_BYTES; o4 += (w4 >>> 8) & LOW_BYTES;
          e5 += w5 & LOW_BYTES; o5 += (w5 >>> 8) & LOW_BYTES;
          e6 += w6 & LOW_BYTES; o6 += (w6 >>> 8) & LOW_BYTES;
          e7 += w7 & LOW_BYTES; o7 += (w7 >>> 8) & LOW_BYTES;
        }
        const bias = 128 * (to - from);
        const at = block * 4;
        unpack(acc, at, e0, o0, bias); unpack(acc, at + 4, e1, o1, bias);
        unpack(acc, at + 8, e2, o2, bias); unpack(acc, at + 12, e3, o3, bias);
        unpack(acc, at + 16, e4, o4, bias); unpack(acc, at + 20, e5, o5, bias);
        unpack(acc, at + 24, e6, o6, bias); unpack(acc, at + 28, e7, o7, bias);
      }
    }
  };
}

/** Adds the four lane sums of one word position (bytes 0 and 2 in `even`, 1 and 3 in `odd`) to acc[at..at+4). */
function unpack(acc: Int32Array, at: number, even: number, odd: number, bias: number): void {
  acc[at]! += (even & 0xffff) - bias;
  acc[at + 1]! += (odd & 0xffff) - bias;
  acc[at + 2]! += (even >>> 16) - bias;
  acc[at + 3]! += (odd >>> 16) - bias;
}
