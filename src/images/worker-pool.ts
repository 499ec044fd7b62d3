import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { ApiError } from "../errors/api-error.js";

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
  run(frames: readonly Uint8Array[]): Promise<number[][]>;
  close(): Promise<void>;
}

const WORKER_URL = new URL("./nsfw-worker.mjs", import.meta.url);
const WASM_DIR = path.dirname(createRequire(import.meta.url).resolve("@tensorflow/tfjs-backend-wasm"));

interface Job {
  id: number;
  frames: readonly Uint8Array[];
  resolve(rows: number[][]): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
}

type WorkerMessage =
  | ({ type: "ready" } & NsfwWorkerInfo)
  | { type: "fatal"; message: string }
  | { type: "result"; id: number; probabilities: number[][] }
  | { type: "error"; id: number; message: string };

/**
 * A small pool of worker threads running the embedded model, so image inference never blocks the
 * event loop that serves text requests. Resolves once every worker has loaded the model on the
 * wasm backend; rejects (and stops the others) if any worker cannot.
 */
export async function createNsfwPool(options: NsfwPoolOptions): Promise<NsfwPool> {
  const size = options.workers;
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`workers must be a positive integer; got ${size}`);
  const maxQueue = options.maxQueue ?? 64;
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;

  const dispatch = (): void => {
    for (const slot of slots) {
      if (slot.job || queue.length === 0) continue;
      const job = queue.shift()!;
      slot.job = job;
      slot.worker.postMessage({ id: job.id, frames: job.frames });
    }
  };

  const settle = (slot: Slot, id: number, outcome: { rows: number[][] } | { error: Error }): void => {
    const job = slot.job;
    if (!job || job.id !== id) return;
    slot.job = undefined;
    if ("rows" in outcome) job.resolve(outcome.rows);
    else job.reject(outcome.error);
    dispatch();
  };

  const start = (): Promise<{ slot: Slot; info: NsfwWorkerInfo }> =>
    new Promise((resolve, reject) => {
      const worker = new Worker(WORKER_URL, { workerData: { wasmDir: options.wasmDir ?? WASM_DIR, modelName: "MobileNetV2" } });
      const slot: Slot = { worker, job: undefined };
      let ready = false;
      worker.on("message", (message: WorkerMessage) => {
        if (message.type === "ready") {
          ready = true;
          const { type: _type, ...info } = message;
          resolve({ slot, info });
        } else if (message.type === "fatal") {
          reject(new Error(`The embedded image model failed to start: ${message.message}`));
          void worker.terminate();
        } else if (message.type === "result") {
          settle(slot, message.id, { rows: message.probabilities });
        } else {
          settle(slot, message.id, { error: new Error(`Image inference failed: ${message.message}`) });
        }
      });
      worker.on("error", (error) => {
        if (!ready) reject(error);
      });
      worker.on("exit", (code) => {
        if (!ready) {
          reject(new Error(`The embedded image model worker exited with code ${code} before it was ready.`));
          return;
        }
        const index = slots.indexOf(slot);
        if (index >= 0) slots.splice(index, 1);
        slot.job?.reject(new Error(`The image model worker exited with code ${code} during inference.`));
        slot.job = undefined;
        // A crashed worker is replaced so the pool keeps its size; queued jobs wait for it.
        if (!closed) {
          start().then(
            (replacement) => {
              if (closed) return void replacement.slot.worker.terminate();
              slots.push(replacement.slot);
              dispatch();
            },
            (error: unknown) => failQueue(error instanceof Error ? error : new Error(String(error))),
          );
        }
      });
    });

  const failQueue = (error: Error): void => {
    if (slots.length > 0) return; // live workers will drain the queue
    for (const job of queue.splice(0)) job.reject(error);
  };

  const started = await Promise.allSettled(Array.from({ length: size }, () => start()));
  const failure = started.find((r) => r.status === "rejected");
  const ok = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  if (failure) {
    closed = true;
    await Promise.all(ok.map(({ slot }) => slot.worker.terminate()));
    throw failure.reason;
  }
  for (const { slot } of ok) slots.push(slot);
  const info = ok[0]!.info;

  return {
    size,
    info,
    run(frames) {
      if (closed) return Promise.reject(new Error("The image model pool is closed."));
      if (queue.length >= maxQueue) {
        return Promise.reject(new ApiError("service_unavailable", "The image model is busy; retry shortly.", { headers: { "retry-after": "1" } }));
      }
      return new Promise((resolve, reject) => {
        queue.push({ id: nextId++, frames, resolve, reject });
        dispatch();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      const error = new Error("The image model pool was closed.");
      for (const job of queue.splice(0)) job.reject(error);
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    },
  };
}
