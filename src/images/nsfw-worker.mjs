// Worker thread that owns one copy of the nsfwjs model, served by the generic worker pool
// (src/threads/). Plain ESM JavaScript so it starts the same on Node 20 and 24 without a
// TypeScript loader. A job is the frames of one image (each 224×224×3 RGB); its answer, the
// class probabilities, one row per frame. Ready, it reports { backend, simd, foldedLayers, maxDeviation }.
import { serveJobs } from "../threads/serve-jobs.mjs";
import { createFoldedModel } from "./folded-model.mjs";

const SIZE = 224;
/** Largest allowed difference between the folded and the original model's probabilities. */
const MAX_FOLD_DEVIATION = 1e-3;

await serveJobs(async (setup) => {
  const ready = await setUp(setup);
  const run = (frames) => {
    try {
      return ready.classify(frames);
    } catch (error) {
      throw new Error(`Image inference failed: ${error?.message ?? error}`);
    }
  };
  return { info: ready.info, run };
});

async function setUp({ wasmDir, modelName }) {
  const tf = await import("@tensorflow/tfjs");
  tf.enableProdMode(); // skips per-op debug validation; inputs are built here, not by callers
  const wasm = await import("@tensorflow/tfjs-backend-wasm");
  wasm.setWasmPaths(wasmDir.endsWith("/") ? wasmDir : `${wasmDir}/`);
  // tfjs quietly falls back to the cpu backend (10× slower) when wasm fails; refuse to run instead.
  const ok = await tf.setBackend("wasm");
  await tf.ready();
  if (!ok || tf.getBackend() !== "wasm") throw new Error(`tfjs backend is "${tf.getBackend()}", not wasm`);
  const simd = await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT");

  const info = console.info;
  console.info = () => {}; // nsfwjs announces the model it loads on every start
  let nsfw;
  try {
    const nsfwjs = await import("nsfwjs");
    nsfw = await nsfwjs.load(modelName);
  } finally {
    console.info = info;
  }
  const folded = createFoldedModel(tf, nsfw.model);
  const maxDeviation = await selfCheck(tf, nsfw.model, folded);
  if (!(maxDeviation <= MAX_FOLD_DEVIATION)) {
    throw new Error(`folded model deviates from nsfwjs by ${maxDeviation}`);
  }
  nsfw.dispose(); // the folded model holds its own copies of the weights

  return {
    info: { backend: tf.getBackend(), simd, foldedLayers: folded.foldedLayers, maxDeviation },
    classify(frames) {
      // Scaling to [0, 1] in plain JS is one pass and one tensor, cheaper than cast + div kernels.
      const frameLength = SIZE * SIZE * 3;
      const input = new Float32Array(frames.length * frameLength);
      frames.forEach((frame, f) => {
        if (frame.length !== frameLength) throw new Error(`frame ${f} has ${frame.length} bytes; expected ${frameLength}`);
        const offset = f * frameLength;
        for (let i = 0; i < frameLength; i++) input[offset + i] = frame[i] / 255;
      });
      const output = tf.tidy(() => folded.predict(tf.tensor4d(input, [frames.length, SIZE, SIZE, 3])));
      try {
        const values = output.dataSync();
        const classes = output.shape[1];
        const rows = [];
        for (let i = 0; i < frames.length; i++) rows.push(Array.from(values.subarray(i * classes, (i + 1) * classes)));
        return rows;
      } finally {
        output.dispose();
      }
    },
  };
}

/** Runs both models on the same fixed pseudo-random image and returns the largest difference. */
async function selfCheck(tf, original, folded) {
  const pixels = new Float32Array(SIZE * SIZE * 3);
  let seed = 12345;
  for (let i = 0; i < pixels.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    pixels[i] = (seed >>> 8) / 0xffffff;
  }
  const input = tf.tensor4d(pixels, [1, SIZE, SIZE, 3]);
  const a = original.predict(input);
  const b = folded.predict(input);
  const [x, y] = await Promise.all([a.data(), b.data()]);
  input.dispose();
  a.dispose();
  b.dispose();
  let max = 0;
  for (let i = 0; i < x.length; i++) max = Math.max(max, Math.abs(x[i] - y[i]));
  return max;
}
