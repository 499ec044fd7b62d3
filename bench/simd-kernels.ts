/**
 * The text model's two WebAssembly SIMD kernels against the JavaScript they replace, on the
 * default model's shapes (four networks: rows of 4 x 32 int8 side by side in a 2^18-bucket table,
 * hidden layers of 48 x 32): `npm run bench:kernels -- [features per window]`. Both sides get
 * the same inputs and must give the same sums (checked); rounds alternate, medians printed.
 */
import { performance } from "node:perf_hooks";
import { affine, createRowSummer } from "../src/classifiers/model/scorers.js";
import { createDenseRelu } from "../src/classifiers/model/wasm-dense-relu.js";
import { allocateRowTable } from "../src/classifiers/model/wasm-row-table.js";
import { createPrng } from "../src/training/prng.js";

const BUCKETS = 1 << 18, NETWORKS = 4, DIM = 32, HIDDEN = 48, WIDE = NETWORKS * DIM;
const FEATURES = Number(process.argv[2] ?? 250); // about a 90-character text's window
const rand = createPrng(1);

const simdTable = allocateRowTable(BUCKETS * WIDE, WIDE);
for (let i = 0; i < simdTable.length; i++) simdTable[i] = Math.floor(rand() * 256) - 128;
const plainTable = simdTable.slice(); // an ordinary Int8Array: the packed JavaScript summer
const simdSums = createRowSummer(simdTable, WIDE), plainSums = createRowSummer(plainTable, WIDE);
const windows = Array.from({ length: 256 }, () => Uint32Array.from({ length: FEATURES }, () => Math.floor(rand() * BUCKETS)));

const layers = Array.from({ length: NETWORKS }, () => ({
  w: Float32Array.from({ length: HIDDEN * DIM }, () => rand() * 2 - 1),
  b: Float32Array.from({ length: HIDDEN }, () => rand() * 2 - 1),
}));
const dense = createDenseRelu(layers, HIDDEN, DIM);
if (!dense) throw new Error("WebAssembly SIMD is not available here");
for (let i = 0; i < dense.input.length; i++) dense.input[i] = rand() * 2 - 1;
const hidden = new Float64Array(HIDDEN);
const inputs = layers.map((_, k) => dense.input.slice(k * DIM, (k + 1) * DIM));
const jsLayers = () => {
  for (let k = 0; k < NETWORKS; k++) {
    affine(layers[k]!.w, layers[k]!.b, inputs[k]!, HIDDEN, DIM, hidden);
    for (let r = 0; r < HIDDEN; r++) hidden[r] = hidden[r]! > 0 ? hidden[r]! : 0;
  }
};

const [a, b] = [new Int32Array(WIDE), new Int32Array(WIDE)];
for (const w of windows.slice(0, 16)) {
  simdSums(w, 0, w.length, a);
  plainSums(w, 0, w.length, b);
  if (a.some((v, d) => v !== b[d])) throw new Error("row sums differ");
}

/** µs per call, the median of alternating rounds. */
function time(run: (i: number) => void, calls: number): number {
  const t = performance.now();
  for (let i = 0; i < calls; i++) run(i);
  return ((performance.now() - t) * 1000) / calls;
}
const cases: Array<[string, (i: number) => void, number]> = [
  [`row sums, JavaScript (packed)`, (i) => { const w = windows[i & 255]!; plainSums(w, 0, w.length, b); }, 4000],
  [`row sums, WebAssembly SIMD`, (i) => { const w = windows[i & 255]!; simdSums(w, 0, w.length, a); }, 4000],
  [`hidden layers, JavaScript`, jsLayers, 20_000],
  [`hidden layers, WebAssembly SIMD`, () => dense.run(), 20_000],
];
const rounds = cases.map(() => [] as number[]);
for (let r = 0; r < 9; r++) cases.forEach(([, run, calls], i) => rounds[i]!.push(time(run, calls)));
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
console.log(`${FEATURES} features per window, ${NETWORKS} networks of ${DIM} -> ${HIDDEN}, median of 9 alternating rounds`);
cases.forEach(([name], i) => console.log(`${name.padEnd(34)} ${median(rounds[i]!).toFixed(2).padStart(7)} µs`));
console.log(`row sums: ${(median(rounds[0]!) / median(rounds[1]!)).toFixed(1)}x, hidden layers: ${(median(rounds[2]!) / median(rounds[3]!)).toFixed(1)}x`);
