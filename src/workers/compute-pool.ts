import { Worker } from "node:worker_threads";
import type { Verdict } from "../classifiers/classifier.js";
import type { HttpSignatureHeaders } from "../signing/http-signature.js";
import { bytesToLatin1, latin1ToBytes } from "./byte-strings.js";
import { decodeVerdict, type EncodedVerdict } from "./verdict-codec.js";
import type { ComputeJob, ComputeResult, ComputeWorkerSetup, JobBatch, WorkerReply } from "./messages.js";

const WORKER_URL = new URL("./compute-worker.mjs", import.meta.url);

/** A job that was running when its worker died this many times is given up on, not retried. */
const MAX_CRASHES = 2;

/**
 * Batches posted to one worker and not yet answered, at most. Two keep the worker busy (the
 * next batch waits in its port while it runs one); beyond that, jobs wait here and go in one
 * larger message when a batch comes back. Each message costs both threads a wake-up and a
 * (de)serialisation, which under load was the event loop's largest single cost.
 */
const MAX_BATCHES_IN_FLIGHT = 2;

interface ComputePoolOptions {
  /** Worker threads; each holds its own copy of the text model. */
  size: number;
  setup: ComputeWorkerSetup;
}

export interface ComputePool {
  /** The id of the classifier the workers loaded (undefined when they have none). */
  readonly classifierId: string | undefined;
  classify(text: string): Promise<Verdict>;
  sign(data: Uint8Array): Promise<Uint8Array>;
  /** A whole signed answer to a call of text items only (see worker-answers.ts), for the JSON route or RPC. */
  answerJson(job: { texts: string[]; answerId: string; requestBody: Uint8Array; nowMs: number }): Promise<AnswerJsonResult>;
  answerRpc(job: { texts: string[]; answerId: string; requestBytes: Uint8Array; nowMs: number }): Promise<AnswerRpcResult>;
  /** Jobs submitted and not yet answered (queued, posted or running), for the metrics. */
  queueDepth(): number;
  close(): Promise<void>;
}

interface AnsweredTexts {
  verdicts: EncodedVerdict[];
  combined: EncodedVerdict | undefined;
}
/** The answer's flags (top level; whether it has a combined layer), its JSON text, UTF-8 length and signature headers (see signJsonBody). */
type AnswerJsonResult = { flagged: boolean; hasCombined: boolean; hasNotEvaluated: boolean; json: string; byteLength: number; headers: HttpSignatureHeaders };
/** The signature metadata for the answer's canonical bytes. */
type AnswerRpcResult = AnsweredTexts & { metadata: Record<string, string> };

type Pending = { job: ComputeJob; crashes: number; resolve: (result: ComputeResult) => void; reject: (error: Error) => void };

interface Slot {
  worker: Worker;
  /** [0]: id of the job the worker is running (it stores it before each job), to tell the culprit of a crash. */
  progress: Int32Array;
  /** Posted, not yet answered, by job id. */
  inFlight: Map<number, Pending>;
  /** Batches posted whose last answers have not come back. */
  batchesInFlight: number;
  /** Queued for the next flush. */
  queued: Pending[];
  load: number;
  /** False from the moment the worker died until its replacement takes the slot. */
  alive: boolean;
}

/**
 * Worker threads for the CPU-bound steps of a request (text classification, Ed25519 signing),
 * so the event loop spends its time on HTTP. Jobs queued during one event-loop turn go to a
 * worker in a single message (batching keeps the messaging cost per request small under load),
 * each to the least-loaded worker, which answers it in parts as it goes. A worker that dies is
 * replaced and its unanswered jobs run again elsewhere (see replace): they are pure functions
 * of their input, so nothing accepted is lost or done twice with a different answer.
 */
export async function createComputePool(options: ComputePoolOptions): Promise<ComputePool> {
  if (!(options.size >= 1)) throw new RangeError("a compute pool needs at least one worker");
  const slots: Slot[] = [];
  let nextId = 0;
  // Ids live in an Int32Array slot (progress), so they wrap before 2^31; 0 means "none yet".
  const takeId = () => (nextId = nextId >= 0x7fffffff ? 1 : nextId + 1);
  let flushScheduled = false;
  let closed = false;
  /** Jobs submitted while no worker is alive (all restarting); handed out when one is back. */
  const waiting: Pending[] = [];
  /** Set when a worker could not be replaced and none is left: later jobs fail at once. */
  let broken: Error | undefined;

  const start = (): Promise<{ slot: Slot; classifierId: string | undefined }> =>
    new Promise((resolve, reject) => {
      const progress = new Int32Array(new SharedArrayBuffer(4));
      const worker = new Worker(WORKER_URL, { workerData: { ...options.setup, progress } });
      const slot: Slot = { worker, progress, inFlight: new Map(), batchesInFlight: 0, queued: [], load: 0, alive: true };
      let ready = false;
      worker.on("message", (message: WorkerReply) => {
        if (message.type === "ready") {
          ready = true;
          resolve({ slot, classifierId: message.classifierId });
        } else if (message.type === "fatal") {
          reject(new Error(`compute worker failed to start: ${message.message}`));
          void worker.terminate();
        } else {
          settle(slot, message.results, message.last);
        }
      });
      worker.on("error", (error) => {
        if (!ready) reject(error);
      });
      worker.on("exit", () => {
        if (ready) replace(slot);
        else reject(new Error("compute worker exited before it was ready"));
      });
    });

  const settle = (slot: Slot, results: ComputeResult[], lastOfBatch: boolean) => {
    if (lastOfBatch) {
      slot.batchesInFlight--;
      // Jobs held back while the worker had enough to do go now.
      if (slot.queued.length > 0) scheduleFlush();
    }
    for (const result of results) {
      const pending = slot.inFlight.get(result.id);
      if (!pending) continue;
      slot.inFlight.delete(result.id);
      slot.load--;
      if (result.ok) pending.resolve(result);
      else pending.reject(new Error(result.message));
    }
  };

  /**
   * A worker died with jobs on it: its jobs go to the other workers (or wait for its
   * replacement) and a replacement starts. Only the job it was running takes the blame (one
   * retry), so a job that kills every worker cannot take its neighbours in the batch down with it.
   */
  const replace = (dead: Slot) => {
    const index = slots.indexOf(dead);
    if (index < 0) return;
    const orphans = [...dead.inFlight.values(), ...dead.queued];
    const culprit = orphans.find((p) => p.job.id === Atomics.load(dead.progress, 0));
    if (culprit && ++culprit.crashes >= MAX_CRASHES) {
      orphans.splice(orphans.indexOf(culprit), 1);
      culprit.reject(new Error("a compute worker died twice while running this job"));
    }
    dead.alive = false;
    dead.inFlight = new Map();
    dead.batchesInFlight = 0;
    dead.queued = [];
    dead.load = 0;
    if (closed) {
      for (const p of orphans) p.reject(new Error("the compute pool is closed"));
      return;
    }
    // To the other workers now, or (none alive) to `waiting` until the replacement is up.
    for (const p of orphans) enqueue(p);
    start().then(
      ({ slot }) => {
        slots[index] = slot;
        for (const p of waiting.splice(0)) enqueue(p);
      },
      (error: Error) => {
        if (!slots.some((s) => s.alive)) {
          broken = error;
          for (const p of waiting.splice(0)) p.reject(error);
        }
      },
    );
  };

  const enqueue = (pending: Pending) => {
    let best: Slot | undefined;
    for (const slot of slots) if (slot.alive && (!best || slot.load < best.load)) best = slot;
    if (!best) return void waiting.push(pending);
    best.queued.push(pending);
    best.load++;
    scheduleFlush();
  };

  // Once per event-loop turn, so that every job queued in the turn shares the message.
  const scheduleFlush = () => {
    if (flushScheduled) return;
    flushScheduled = true;
    setImmediate(flush);
  };

  const flush = () => {
    flushScheduled = false;
    for (const slot of slots) {
      if (slot.alive && slot.queued.length > 0 && slot.batchesInFlight < MAX_BATCHES_IN_FLIGHT) post(slot);
    }
  };

  const post = (slot: Slot) => {
    const batch = slot.queued;
    slot.queued = [];
    for (const pending of batch) slot.inFlight.set(pending.job.id, pending);
    slot.batchesInFlight++;
    slot.worker.postMessage({ jobs: batch.map((p) => p.job) } satisfies JobBatch);
  };

  const submit = (job: ComputeJob): Promise<ComputeResult> =>
    new Promise((resolve, reject) => {
      if (closed) return reject(new Error("the compute pool is closed"));
      if (broken) return reject(broken);
      enqueue({ job, crashes: 0, resolve, reject });
    });

  const started = await Promise.allSettled(Array.from({ length: options.size }, start));
  const failure = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  for (const s of started) if (s.status === "fulfilled") slots.push(s.value.slot);
  if (failure) {
    closed = true;
    await Promise.all(slots.map((s) => s.worker.terminate()));
    throw failure.reason;
  }
  const classifierId = (started[0] as PromiseFulfilledResult<{ classifierId: string | undefined }>).value.classifierId;

  return {
    classifierId,
    async classify(text) {
      const result = await submit({ id: takeId(), kind: "classify", text });
      if (!("verdict" in result)) throw new Error("compute worker answered a classify job without a verdict");
      return decodeVerdict(result.verdict);
    },
    async sign(data) {
      const result = await submit({ id: takeId(), kind: "sign", data: bytesToLatin1(data) });
      if (!("signature" in result)) throw new Error("compute worker answered a sign job without a signature");
      return latin1ToBytes(result.signature);
    },
    async answerJson({ texts, answerId, requestBody, nowMs }) {
      const result = await submit({ id: takeId(), kind: "answer-json", texts, answerId, requestBody: bytesToLatin1(requestBody), nowMs });
      if (!("json" in result)) throw new Error("compute worker answered an answer-json job without an answer");
      return result;
    },
    async answerRpc({ texts, answerId, requestBytes, nowMs }) {
      const result = await submit({ id: takeId(), kind: "answer-rpc", texts, answerId, requestBytes: bytesToLatin1(requestBytes), nowMs });
      if (!("metadata" in result)) throw new Error("compute worker answered an answer-rpc job without an answer");
      return result;
    },
    queueDepth: () => waiting.length + slots.reduce((sum, slot) => sum + slot.load, 0),
    async close() {
      closed = true;
      const pending = [...slots.flatMap((s) => [...s.inFlight.values(), ...s.queued]), ...waiting.splice(0)];
      await Promise.all(slots.map((s) => s.worker.terminate()));
      for (const p of pending) p.reject(new Error("the compute pool is closed"));
    },
  };
}
