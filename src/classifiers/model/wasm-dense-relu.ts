import { align16, instantiateWithMemory, loadSimdModule } from "./wasm-support.js";

/**
 * The hidden layers of several embedding-bag networks of one shape, h = ReLU(W x + b), computed by
 * dense-relu.wasm (128-bit SIMD; source and reasons in dense-relu.wat). Same to the bit as
 * scorers.ts's hiddenLayer(); used by the default model's ensemble (mlp-ensemble-scorer.ts).
 */
export interface DenseRelu {
  /** Network k's input, x[k], is input[k * cols, (k + 1) * cols): write it, then run(). */
  readonly input: Float64Array;
  /** Network k's hidden layer is output[k * rows, (k + 1) * rows) after run(). */
  readonly output: Float64Array;
  run(): void;
}

const wasmModule = loadSimdModule(new URL("./dense-relu.wasm", import.meta.url));

type DenseReluFn = (n: number, rows: number, cols: number, w: number, b: number, x: number, out: number) => void;

/**
 * `layers[k]` is network k's weights (rows x cols, row-major, as in the model file) and biases.
 * Undefined where WebAssembly SIMD is missing, its memory cannot be reserved (wasm-support.ts) or
 * rows is not a multiple of 8: the caller keeps its JavaScript layer.
 */
export function createDenseRelu(layers: readonly { w: Float32Array; b: Float32Array }[], rows: number, cols: number): DenseRelu | undefined {
  if (!wasmModule || rows % 8 !== 0 || layers.length === 0) return undefined;
  const n = layers.length;
  const weightsAt = 0;
  const biasesAt = weightsAt + n * rows * cols * 4;
  const inputAt = align16(biasesAt + n * rows * 4);
  const outputAt = inputAt + n * cols * 8;
  const instance = instantiateWithMemory(wasmModule, outputAt + n * rows * 8);
  if (!instance) return undefined;
  const { buffer } = instance;
  const denseRelu = instance.exports.denseRelu as DenseReluFn;
  // Rows in pairs, a pair's two weights of one column side by side: one float64x2 lane per row.
  const weights = new Float32Array(buffer, weightsAt, n * rows * cols);
  const biases = new Float32Array(buffer, biasesAt, n * rows);
  layers.forEach(({ w, b }, k) => {
    if (w.length !== rows * cols || b.length !== rows) throw new Error(`network ${k}: expected ${rows} x ${cols} weights and ${rows} biases`);
    const at = k * rows * cols;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) weights[at + ((r >> 1) * cols + c) * 2 + (r & 1)] = w[r * cols + c]!;
    }
    biases.set(b, k * rows);
  });
  return {
    input: new Float64Array(buffer, inputAt, n * cols),
    output: new Float64Array(buffer, outputAt, n * rows),
    run: () => denseRelu(n, rows, cols, weightsAt, biasesAt, inputAt, outputAt),
  };
}

