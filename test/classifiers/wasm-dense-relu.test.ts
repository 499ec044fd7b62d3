import { describe, expect, it } from "vitest";
import { affine } from "../../src/classifiers/model/scorers.js";
import { createDenseRelu } from "../../src/classifiers/model/wasm-dense-relu.js";
import { createPrng } from "../../src/training/prng.js";

describe("hidden layers in WebAssembly (wasm-dense-relu.ts, dense-relu.wat)", () => {
  const rand = createPrng(3);
  const f32 = (n: number) => Float32Array.from({ length: n }, () => (rand() * 2 - 1) * 0.7);

  it.each([[48, 32, 4], [8, 3, 1], [16, 5, 2]])("rows %i x cols %i, %i networks: ReLU(W x + b) to the bit as the JavaScript layer", (rows, cols, n) => {
    const layers = Array.from({ length: n }, () => ({ w: f32(rows * cols), b: f32(rows) }));
    const dense = createDenseRelu(layers, rows, cols)!;
    expect(dense).toBeDefined();
    for (let trial = 0; trial < 5; trial++) {
      for (let i = 0; i < dense.input.length; i++) dense.input[i] = (rand() * 2 - 1) * 10 ** (trial - 2);
      dense.run();
      layers.forEach(({ w, b }, k) => {
        const expected = new Float64Array(rows);
        affine(w, b, dense.input.subarray(k * cols, (k + 1) * cols), rows, cols, expected);
        for (let r = 0; r < rows; r++) expected[r] = expected[r]! > 0 ? expected[r]! : 0;
        expect(Array.from(dense.output.subarray(k * rows, (k + 1) * rows))).toEqual(Array.from(expected));
      });
    }
  });

  it("maps NaN, -0 and negative sums to +0, as `h > 0 ? h : 0` does", () => {
    const dense = createDenseRelu([{ w: new Float32Array(8), b: Float32Array.from([-0, -1, 0, 1, Number.NaN, 2, -3, 0.5]) }], 8, 1)!;
    dense.input[0] = 1;
    dense.run();
    expect(Array.from(dense.output).map((v) => (Object.is(v, -0) ? "-0" : v))).toEqual([0, 0, 0, 1, 0, 2, 0, 0.5]);
  });

  it("leaves layers whose rows are not a multiple of 8 to JavaScript, and refuses mismatched weights", () => {
    expect(createDenseRelu([{ w: new Float32Array(5 * 4), b: new Float32Array(5) }], 5, 4)).toBeUndefined();
    expect(() => createDenseRelu([{ w: new Float32Array(8 * 3), b: new Float32Array(8) }], 8, 4)).toThrow(/expected 8 x 4/);
  });
});
