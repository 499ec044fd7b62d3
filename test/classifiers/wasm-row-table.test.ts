import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createRowSummer } from "../../src/classifiers/model/scorers.js";
import { allocateRowTable, rowSummerFor } from "../../src/classifiers/model/wasm-row-table.js";
import { createPrng } from "../../src/training/prng.js";
// @ts-expect-error: a plain-JS build script without type declarations
import { assemble, WASM_SOURCES } from "../../scripts/build-wasm.mjs";

/** The plain byte-by-byte sums the SIMD ones must equal. */
function plainSums(emb: Int8Array, dim: number, stride: number, offset: number, features: Uint32Array, from: number, to: number): number[] {
  const acc = new Array<number>(dim).fill(0);
  for (let i = from; i < to; i++) for (let d = 0; d < dim; d++) acc[d]! += emb[features[i]! * stride + offset + d]!;
  return acc;
}

describe("embedding row sums in WebAssembly (wasm-row-table.ts, row-sums.wat)", () => {
  const buckets = 512;
  const wide = 128;
  const rand = createPrng(5);
  const table = allocateRowTable(buckets * wide, wide);
  for (let i = 0; i < table.length; i++) table[i] = Math.floor(rand() * 256) - 128;
  const ids = (n: number) => Uint32Array.from({ length: n }, () => Math.floor(rand() * buckets));

  it("the committed binary is what its source assembles to (npm run build:wasm)", async () => {
    for (const source of WASM_SOURCES as string[]) {
      expect(Buffer.from(await assemble(source)).equals(readFileSync(source.replace(/\.wat$/, ".wasm")))).toBe(true);
    }
  });

  it.each([
    [128, 128, 0], // the shipped four networks' rows side by side
    [32, 128, 0], // one member's slice of them, as explanations read it
    [32, 128, 96],
    [64, 128, 32],
  ])("sums rows of %i bytes (stride %i, offset %i) exactly as the plain loop does", (dim, stride, offset) => {
    const summer = rowSummerFor(table, dim, stride, offset)!;
    expect(summer).toBeDefined();
    for (const n of [0, 1, 7, 255, 256, 257, 700]) {
      const features = ids(n);
      const acc = new Int32Array(dim).fill(99); // overwritten, not added to
      summer(features, 0, n, acc);
      expect(Array.from(acc)).toEqual(plainSums(table, dim, stride, offset, features, 0, n));
    }
    const features = ids(50);
    const acc = new Int32Array(dim);
    summer(features, 10, 35, acc);
    expect(Array.from(acc)).toEqual(plainSums(table, dim, stride, offset, features, 10, 35));
  });

  it("keeps exact sums at the int16 lanes' limits and past one call's features", () => {
    const extremes = allocateRowTable(2 * wide, wide);
    extremes.fill(-128, 0, wide);
    extremes.fill(127, wide, 2 * wide);
    const summer = createRowSummer(extremes, wide);
    for (const [bucket, n] of [[0, 256], [0, 257], [1, 256], [1, 513], [0, 40_000]] as const) {
      const acc = new Int32Array(wide);
      summer(new Uint32Array(n).fill(bucket), 0, n, acc);
      expect(new Set(acc)).toEqual(new Set([(bucket === 0 ? -128 : 127) * n]));
    }
    const mixed = Uint32Array.from({ length: 40_000 }, (_, i) => (i % 3 === 0 ? 1 : 0));
    const acc = new Int32Array(wide);
    summer(mixed, 123, 39_999, acc);
    expect(Array.from(acc)).toEqual(plainSums(extremes, wide, wide, 0, mixed, 123, 39_999));
  });

  it("leaves plain tables and other row widths to the JavaScript summers", () => {
    expect(rowSummerFor(new Int8Array(buckets * wide), wide, wide, 0)).toBeUndefined();
    expect(rowSummerFor(table, 4, wide, 0)).toBeUndefined();
    expect(rowSummerFor(table, 256, 256, 0)).toBeUndefined(); // wider than the table's scratch
    const features = ids(300);
    const [simd, js] = [new Int32Array(wide), new Int32Array(wide)];
    createRowSummer(table, wide)(features, 0, 300, simd);
    createRowSummer(table.slice(), wide)(features, 0, 300, js);
    expect(Array.from(simd)).toEqual(Array.from(js));
  });
});
