import { readFileSync } from "node:fs";

/**
 * Embedding tables kept in WebAssembly memory, so that their rows are summed by row-sums.wasm
 * (128-bit SIMD; source and reasons in row-sums.wat) instead of in JavaScript: about a fifth of
 * the time for the default model's 128-byte rows (`npm run bench:kernels`). The sums are
 * integers, so scores are the same to the bit either way.
 *
 * allocateRowTable hands out the table; createRowSummer (scorers.ts) asks rowSummerFor whether a
 * table it is given lives here. Where WebAssembly SIMD is missing, the machine is big-endian or
 * the memory cannot be reserved (reserveMemory), tables are plain Int8Arrays summed in JavaScript.
 */
const WASM_BYTES = readFileSync(new URL("./row-sums.wasm", import.meta.url));
/**
 * WebAssembly memory is little-endian; JavaScript's typed arrays over it use the machine's order, so
 * a big-endian machine keeps the JavaScript loops.
 */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const wasmModule = LITTLE_ENDIAN && WebAssembly.validate(WASM_BYTES) ? new WebAssembly.Module(WASM_BYTES) : undefined;

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
  const pages = Math.ceil((sumsAt + align16(maxRowBytes) * 4) / 65_536);
  const memory = reserveMemory(pages);
  if (!memory) return new Int8Array(bytes);
  const instance = new WebAssembly.Instance(wasmModule, { env: { memory } });
  const buffer = memory.buffer;
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

/**
 * A fixed-size WebAssembly memory, or undefined where it cannot be had: Node 20's V8 reserves about
 * 10 GB of address space for each (guard regions), which a virtual-memory limit (`ulimit -v` under
 * about 16 GB) refuses (Node 24's falls back to bounds checks). The caller then keeps its
 * JavaScript path: slower, the same scores (test/classifiers/wasm-fallback.test.ts).
 */
export function reserveMemory(pages: number): WebAssembly.Memory | undefined {
  try {
    return new WebAssembly.Memory({ initial: pages, maximum: pages });
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

const align16 = (n: number) => (n + 15) & ~15;
