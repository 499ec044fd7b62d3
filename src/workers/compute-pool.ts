import type { ClassifyOptions, Verdict } from "../classifiers/classifier.js";
import type { HttpSignatureHeaders } from "../signing/http-signature.js";
import { createWorkerPool } from "../threads/worker-pool.js";
import { bytesToLatin1, latin1ToBytes } from "./byte-strings.js";
import { decodeVerdict, type EncodedVerdict } from "./verdict-codec.js";
import type { ComputeJob, ComputeResult, ComputeWorkerSetup } from "./messages.js";
import { ApiError } from "../errors/api-error.js";
import type { SignatureScope } from "../signing/scope.js";
import { rememberDigestHeader } from "../signing/sha256.js";
import { pairReadingLengths } from "../moderation/combined-reading.js";

const WORKER_URL = new URL("./compute-worker.mjs", import.meta.url);

/**
 * Batches posted to one worker and not yet answered, at most. Two keep the worker busy (the
 * next batch waits in its port while it runs one); beyond that, jobs wait in the pool and go
 * in one larger message when a batch comes back. Each message costs both threads a wake-up and
 * a (de)serialisation, which under load was the event loop's largest single cost.
 */
const MAX_BATCHES_IN_FLIGHT = 2;

/** A job that was running when its worker died this many times is given up on, not retried. */
const MAX_CRASHES = 2;

/**
 * The most work one message to a worker holds, in costOf's units (characters to classify):
 * jobs past it wait in the pool, where callers' accounts take turns (threads/lane-queue.ts).
 * 50,000 characters take about 10 ms as prose and up to about 150 ms as random symbols, the
 * slowest text measured; a larger job (ten 10,000-character texts) goes alone.
 */
const MAX_BATCH_COST = 50_000;

/** What any job costs besides its text: a message's share, a signature. */
const JOB_OVERHEAD = 200;

/**
 * A job's expected work, in characters of text classified: the texts, twice when there are
 * several (they are also judged together), and each pair of neighbours read alone once more
 * (pairReadingLengths, combined-reading.ts); a JSON body counts one per 50 bytes (parsing and its checks
 * cost far less per byte than classifying does per character).
 */
function costOf(job: ComputeJob): number {
  switch (job.kind) {
    case "classify":
      return JOB_OVERHEAD + job.text.length;
    case "answer-json":
    case "answer-rpc": {
      let characters = 0;
      for (const text of job.texts) characters += text.length;
      let pairs = 0;
      for (const length of pairReadingLengths(job.texts)) pairs += length;
      return JOB_OVERHEAD + characters * (job.texts.length > 1 ? 2 : 1) + pairs;
    }
    case "parse-json":
      return JOB_OVERHEAD + Math.ceil(job.body.length / 50);
    default:
      return JOB_OVERHEAD;
  }
}

interface ComputePoolOptions {
  /** Worker threads; each holds its own copy of the text model. */
  size: number;
  setup: ComputeWorkerSetup;
}

export interface ComputePool {
  /** The id of the classifier the workers loaded (undefined when they have none). */
  readonly classifierId: string | undefined;
  /** `lane`: the caller's account, whose turn the job waits for (threads/lane-queue.ts). */
  classify(text: string, lane?: string, options?: ClassifyOptions): Promise<Verdict>;
  sign(data: Uint8Array): Promise<Uint8Array>;
  /** A whole signed answer to a call of text items only (see worker-answers.ts), for the JSON route or RPC. */
  answerJson(job: { texts: string[]; answerId: string; requestBody: Uint8Array; nowMs: number; scope: SignatureScope }): Promise<AnswerJsonResult>;
  answerRpc(job: { texts: string[]; answerId: string; requestBytes: Uint8Array; nowMs: number; scope: SignatureScope }): Promise<AnswerRpcResult>;
  /**
   * A JSON-route body parsed as parseJsonBody would (its refusals raised as the same ApiErrors);
   * the body's digest header is remembered for the answer's signature (sha256.ts).
   */
  parseJson(body: Uint8Array): Promise<unknown>;
  /** Jobs submitted and not yet answered (queued, posted or running), for the metrics. */
  queueDepth(): number;
  /** Workers running now: 0 while every one is dead and its replacement has not started (readiness). */
  live(): number;
  close(): Promise<void>;
}

/**
 * The answer's top-level flag, whether it has a combined layer and a not_evaluated, its JSON text,
 * UTF-8 length and signature headers (signOutcome, signing/sign-outcome.ts).
 */
type AnswerJsonResult = { flagged: boolean; hasCombined: boolean; hasNotEvaluated: boolean; json: string; byteLength: number; headers: HttpSignatureHeaders };
/** The verdicts, and the signature metadata for the answer's canonical bytes. */
type AnswerRpcResult = { verdicts: EncodedVerdict[]; combined: EncodedVerdict | undefined; metadata: Record<string, string> };

/**
 * Worker threads for the CPU-bound steps of a request (text classification, Ed25519 signing,
 * whole signed answers, parsing large JSON bodies), so the event loop spends its time on HTTP.
 * A generic worker pool (src/threads/worker-pool.ts) with jobs gathered per event-loop turn, two messages in flight
 * per worker, callers' accounts taking turns for the rest (whole answers and classify jobs name
 * their account; signing and parsing share one lane), and a job re-run once if its worker dies under it: the
 * jobs are pure functions of their input, so nothing accepted is lost or done twice with a
 * different answer.
 */
export async function createComputePool(options: ComputePoolOptions): Promise<ComputePool> {
  if (!(options.size >= 1)) throw new RangeError("a compute pool needs at least one worker");
  const pool = await createWorkerPool<ComputeJob, ComputeResult, { classifierId: string | undefined }, ComputeWorkerSetup>({
    url: WORKER_URL,
    size: options.size,
    setup: options.setup,
    gatherPerTurn: true,
    maxBatchesInFlight: MAX_BATCHES_IN_FLIGHT,
    maxCrashes: MAX_CRASHES,
    maxBatchCost: MAX_BATCH_COST,
    costOf,
    errors: {
      // Only at shutdown, for calls still waiting when the grace period ran out: the caller may
      // retry elsewhere (UNAVAILABLE, 503), and it is not the server's error to log.
      closed: () => new ApiError("service_unavailable", "The service is shutting down; retry the call.", { headers: { "retry-after": "1" } }),
      crashed: () => new Error("a compute worker died twice while running this job"),
      failedToStart: (message) => new Error(`compute worker failed to start: ${message}`),
      exitedBeforeReady: () => new Error("compute worker exited before it was ready"),
      // Transient: the pool keeps trying to start one; the caller may retry here or elsewhere.
      noWorker: () => new ApiError("service_unavailable", "No compute worker is running; retry the call.", { headers: { "retry-after": "1" } }),
    },
  });

  return {
    classifierId: pool.info.classifierId,
    async classify(text, lane = "", options) {
      const explainFrom = options?.explainFrom;
      const result = await pool.run(explainFrom ? { kind: "classify", text, explainFrom } : { kind: "classify", text }, undefined, lane);
      if (!("verdict" in result)) throw new Error("compute worker answered a classify job without a verdict");
      return decodeVerdict(result.verdict);
    },
    async sign(data) {
      const result = await pool.run({ kind: "sign", data: bytesToLatin1(data) });
      if (!("signature" in result)) throw new Error("compute worker answered a sign job without a signature");
      return latin1ToBytes(result.signature);
    },
    async answerJson({ texts, answerId, requestBody, nowMs, scope }) {
      const result = await pool.run({ kind: "answer-json", texts, answerId, requestBody: bytesToLatin1(requestBody), nowMs, scope }, undefined, scope.account);
      if (!("json" in result)) throw new Error("compute worker answered an answer-json job without an answer");
      return result;
    },
    async answerRpc({ texts, answerId, requestBytes, nowMs, scope }) {
      const result = await pool.run({ kind: "answer-rpc", texts, answerId, requestBytes: bytesToLatin1(requestBytes), nowMs, scope }, undefined, scope.account);
      if (!("metadata" in result)) throw new Error("compute worker answered an answer-rpc job without an answer");
      return result;
    },
    async parseJson(body) {
      const result = await pool.run({ kind: "parse-json", body });
      if (!("requestDigest" in result)) throw new Error("compute worker answered a parse-json job without a digest");
      rememberDigestHeader(body, result.requestDigest);
      if ("refused" in result) throw new ApiError(result.refused.code, result.refused.message);
      return result.parsed;
    },
    queueDepth: () => pool.pending(),
    live: () => pool.live(),
    close: () => pool.close(),
  };
}
