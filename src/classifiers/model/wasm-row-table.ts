import { align16, instantiateWithMemory, loadSimdModule } from "./wasm-support.js";

/**
 * Embedding tables kept in WebAssembly memory, so that their rows are summed by row-sums.wasm
 * (128-bit SIMD; source and reasons in row-sums.wat) instead of in JavaScript: about a fifth of
 * the time for the default model's 128-byte rows (`npm run bench:kernels`). The sums are
 * integers, so scores are the same to the bit either way.
 *
 * allocateRowTable hands out the table; createRowSummer (scorers.ts) asks rowSummerFor whether a
 * table it is given lives here. Where WebAssembly SIMD is missing, the machine is big-endian or
 * the memory cannot be reserved (wasm-support.ts), tables are plain Int8Arrays summed in JavaScript.
 */
const wasmModule = loadSimdModule(new URL("./row-sums.wasm", import.meta.url));

/** scorers.ts's RowSummer (declared here too: scorers.ts imports this file). */
type RowSummer = (features: Uint32Array, from: number, to: number, acc: Int32Array) => void;
type SumRows = (feat: number, count: number, stride: number, offset: number, rowBytes: number, acc: number) => void;

interface WasmTable {
  sumRows: SumRows;
  /** Scratch after the table: the window's feature ids go in, its sums come out. */
  features: Uint32Array;
  featuresAt: number;
  sums: Int32Array;
  sumsAt: number;
}

/** Feature ids one call takes; a longer window is summed in parts (windows are far shorter). */
const FEATURES_PER_CALL = 16_384;
const tables = new WeakMap<ArrayBufferLike, WasmTable>();

/**
 * A zeroed table of `bytes` int8 values whose rows (at most `maxRowBytes` wide) rowSummerFor can
 * sum with SIMD; a plain Int8Array where WebAssembly SIMD is not available. Never grown, so views
 * of it stay valid.
 */
export function allocateRowTable(bytes: number, maxRowBytes: number): Int8Array {
  if (!wasmModule) return new Int8Array(bytes);
  const featuresAt = align16(bytes);
  const sumsAt = featuresAt + FEATURES_PER_CALL * 4;
  const instance = instantiateWithMemory(wasmModule, sumsAt + align16(maxRowBytes) * 4);
  if (!instance) return new Int8Array(bytes);
  const { buffer } = instance;
  tables.set(buffer, {
    sumRows: instance.exports.sumRows as SumRows,
    features: new Uint32Array(buffer, featuresAt, FEATURES_PER_CALL),
    featuresAt,
    sums: new Int32Array(buffer, sumsAt, align16(maxRowBytes)),
    sumsAt,
  });
  return new Int8Array(buffer, 0, bytes);
}

/**
 * The SIMD summer of rows emb[b * stride + offset ..][0..dim) when `emb` is a table from
 * allocateRowTable and dim is a multiple of 32 that fits its scratch; otherwise undefined.
 */
export function rowSummerFor(emb: Int8Array, dim: number, stride: number, offset: number): RowSummer | undefined {
  const table = tables.get(emb.buffer);
  if (!table || dim % 32 !== 0 || dim > table.sums.length) return undefined;
  const { sumRows, features, featuresAt, sumsAt } = table;
  const base = emb.byteOffset + offset;
  const sums = table.sums.subarray(0, dim);
  return (window, from, to, acc) => {
    for (let at = from; at === from || at < to; at += FEATURES_PER_CALL) {
      const end = Math.min(to, at + FEATURES_PER_CALL);
      features.set(at === 0 && end === window.length ? window : window.subarray(at, end));
      sumRows(featuresAt, end - at, stride, base, dim, sumsAt);
      if (at === from) acc.set(sums);
      else for (let d = 0; d < dim; d++) acc[d]! += sums[d]!;
    }
  };
}
