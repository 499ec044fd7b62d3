import { instantiateWithMemory, loadSimdModule } from "../classifiers/model/wasm-support.js";

/**
 * The embedding table of a network in training, with its AdaGrad sums, in WebAssembly memory, and
 * the two loops over a window's rows (the bag's sum, the rows' AdaGrad steps) in
 * embedding-bag.wasm (float64x2 SIMD; source and reasons in embedding-bag.wat). They give what
 * train-mlp.ts's JavaScript loops give to the bit, about twice as fast.
 */
export interface EmbeddingBagKernels {
  /** The table (rows x dim float32, zeroed), for the trainer to initialise and read. */
  readonly emb: Float32Array;
  /** AdaGrad's sums of squared gradients, one per table value (zeroed). */
  readonly gEmb: Float32Array;
  /** out[d] = 0 + sum in order of emb[feats[i] * dim + d] for i in [from, to); false: too many rows, use the JavaScript loop. */
  bagSum(feats: Uint32Array, from: number, to: number, out: Float64Array): boolean;
  /** train-mlp.ts's AdaGrad step on every row feats[from, to) with gradient dh0 * norm; false as above. */
  adagradRows(feats: Uint32Array, from: number, to: number, dh0: Float64Array, norm: number, lr: number): boolean;
}

const wasmModule = loadSimdModule(new URL("./embedding-bag.wasm", import.meta.url));

/** Rows one call takes: far more than a training window has. */
const MAX_ROWS = 1 << 16;

type BagSum = (feat: number, count: number, emb: number, dim: number, out: number) => void;
type AdagradRows = (feat: number, count: number, emb: number, g: number, dim: number, dh0: number, norm: number, lr: number) => void;

/** Undefined where WebAssembly SIMD or its memory is not to be had, or dim is odd: train in JavaScript. */
export function createEmbeddingBagKernels(rows: number, dim: number): EmbeddingBagKernels | undefined {
  if (!wasmModule || dim % 2 !== 0) return undefined;
  const tableBytes = rows * dim * 4;
  const embAt = 0;
  const gAt = embAt + tableBytes;
  const featAt = gAt + tableBytes;
  const vecAt = featAt + MAX_ROWS * 4;
  const outAt = vecAt + dim * 8;
  const instance = instantiateWithMemory(wasmModule, outAt + dim * 8);
  if (!instance) return undefined;
  const { exports, buffer } = instance;
  const bagSum = exports.bagSum as BagSum;
  const adagradRows = exports.adagradRows as AdagradRows;
  const feat = new Uint32Array(buffer, featAt, MAX_ROWS);
  const vec = new Float64Array(buffer, vecAt, dim);
  const out = new Float64Array(buffer, outAt, dim);
  return {
    emb: new Float32Array(buffer, embAt, rows * dim),
    gEmb: new Float32Array(buffer, gAt, rows * dim),
    bagSum(feats, from, to, result) {
      if (to - from > MAX_ROWS) return false;
      feat.set(feats.subarray(from, to));
      bagSum(featAt, to - from, embAt, dim, outAt);
      result.set(out);
      return true;
    },
    adagradRows(feats, from, to, dh0, norm, lr) {
      if (to - from > MAX_ROWS) return false;
      feat.set(feats.subarray(from, to));
      vec.set(dh0);
      adagradRows(featAt, to - from, embAt, gAt, dim, vecAt, norm, lr);
      return true;
    },
  };
}
