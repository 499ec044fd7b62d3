import { createRequire } from "node:module";
import path from "node:path";
import { ApiError } from "../errors/api-error.js";
import { laneOf } from "../threads/caller-lane.js";
import { createWorkerPool } from "../threads/worker-pool.js";

interface NsfwPoolOptions {
  /** Worker threads, each with its own model copy (~40 MB) and one inference at a time. */
  workers: number;
  /** Jobs allowed to wait for a free worker; past this, callers get service_unavailable. */
  maxQueue?: number;
  /** Where the tfjs wasm binaries are; defaults to the installed @tensorflow/tfjs-backend-wasm. */
  wasmDir?: string;
}

/** What each worker reported at start-up. */
export interface NsfwWorkerInfo {
  backend: string;
  simd: boolean;
  foldedLayers: number;
  maxDeviation: number;
}

export interface NsfwPool {
  readonly size: number;
  readonly info: NsfwWorkerInfo;
  /** Class probabilities (nsfwjs order: drawing, hentai, neutral, porn, sexy), one row per frame. */
  /** Aborting `signal` drops the frames while they wait for a worker (WorkerPool.run). */
  run(frames: readonly Uint8Array[], signal?: AbortSignal): Promise<number[][]>;
  close(): Promise<void>;
}

const WORKER_URL = new URL("./nsfw-worker.mjs", import.meta.url);
const WASM_DIR = path.dirname(createRequire(import.meta.url).resolve("@tensorflow/tfjs-backend-wasm"));

/**
 * A small pool of worker threads running the embedded model, so image inference never blocks the
 * event loop that serves text requests: the generic worker pool (src/threads/worker-pool.ts), one
 * image per worker at a time, sent at once. Resolves once every worker has loaded the model on
 * the wasm backend; rejects (and stops the others) if any worker cannot. A worker that dies is
 * replaced; the image it was scoring is refused, not retried (it may be what killed it).
 */
export async function createNsfwPool(options: NsfwPoolOptions): Promise<NsfwPool> {
  const size = options.workers;
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`workers must be a positive integer; got ${size}`);
  const maxQueue = options.maxQueue ?? 64;
  const pool = await createWorkerPool<readonly Uint8Array[], number[][], NsfwWorkerInfo, { wasmDir: string; modelName: string }>({
    url: WORKER_URL,
    size,
    setup: { wasmDir: options.wasmDir ?? WASM_DIR, modelName: "MobileNetV2" },
    gatherPerTurn: false,
    maxBatchesInFlight: 1,
    maxCrashes: 1,
    // Per caller's account in turn (the call's signal names it, threads/caller-lane.ts): one account's burst filled the
    // queue and every other account's image got 503 (found by an audit).
    maxWaiting: { jobs: maxQueue, refusal: () => new ApiError("service_unavailable", "The image model is busy; retry shortly.", { headers: { "retry-after": "1" } }) },
    errors: {
      closed: () => new Error("The image model pool is closed."),
      crashed: (code) => new Error(`The image model worker exited with code ${code} during inference.`),
      failedToStart: (message) => new Error(`The embedded image model failed to start: ${message}`),
      exitedBeforeReady: (code) => new Error(`The embedded image model worker exited with code ${code} before it was ready.`),
      noWorker: () => new ApiError("service_unavailable", "The image model is restarting; retry shortly.", { headers: { "retry-after": "1" } }),
    },
  });

  return {
    size,
    info: pool.info,
    run(frames, signal) {
      return pool.run(frames, signal, laneOf(signal));
    },
    close: () => pool.close(),
  };
}
