import { ModerateResponseSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { loadConfiguredTextClassifier } from "../classifiers/configured-text-classifier.js";
import type { TextClassifier } from "../classifiers/classifier.js";
import { moderateAnswerJsonText } from "../moderation/moderate-answer-json.js";
import { readTexts } from "../moderation/read-texts.js";
import { textAnswerMessage } from "../moderation/text-answer-message.js";
import { createEd25519SignFunction } from "../signing/ed25519-sign.js";
import { signOutcome } from "../signing/sign-outcome.js";
import { createDelegatingSigner, type Signer } from "../signing/signer.js";
import { bytesToLatin1, latin1ToBytes } from "./byte-strings.js";
import { assembleAnswerFromEncoded, encodeVerdict } from "./verdict-codec.js";
import { timeTextClassifier } from "../observability/shared-timings.js";
import type { ComputeJob, ComputeResult, ComputeWorkerSetup } from "./messages.js";
import { serveJobs } from "../threads/serve-jobs.mjs";
import { ApiError } from "../errors/api-error.js";
import { parseJsonBody } from "../moderation/json-body-value.js";
import { sha256DigestHeader } from "../signing/sha256.js";

/**
 * The body of a compute worker: CPU-bound, side-effect-free steps of a request (text
 * classification, Ed25519 signing, whole signed answers to text-only calls, and parsing large
 * JSON bodies) moved off the
 * event loop that serves HTTP. serveJobs answers each batch in parts of 4 (the pool's
 * replyEvery): answering a whole batch at the end made the two threads take turns under load
 * (one idle while the other worked), +11% throughput in `npm run bench`.
 * Tests: test/workers/combined-layer-paths.test.ts, worker-answers.test.ts, server-with-workers.test.ts.
 */
await serveJobs(async (setup: ComputeWorkerSetup) => {
  const loaded = setup.textClassifier === undefined ? undefined : await loadConfiguredTextClassifier(setup.textClassifier);
  const classifier = loaded && setup.classifierTimings ? timeTextClassifier(loaded, setup.classifierTimings) : loaded;
  const signWithKey = setup.signingKey === undefined ? undefined : createEd25519SignFunction(setup.signingKey);
  const signer = signWithKey && setup.signingKeyId ? createDelegatingSigner(setup.signingKeyId, async (data) => signWithKey(data)) : undefined;

  const run = async (job: ComputeJob): Promise<ComputeResult> => {
    if (job.kind === "parse-json") return parseJson(job.body);
    if (job.kind === "sign") {
      if (!signWithKey) throw new Error("this worker has no signing key");
      return { signature: bytesToLatin1(signWithKey(latin1ToBytes(job.data))) };
    }
    if (!classifier) throw new Error("this worker has no text classifier");
    if (job.kind === "classify") return { verdict: encodeVerdict(await classifier.classify(job.text, undefined, job.explainFrom ? { explainFrom: job.explainFrom } : undefined)) };
    if (!signer) throw new Error("this worker has no signing key");
    if (job.kind === "answer-json") return answerJson(job, classifier, signer);
    return answerRpc(job, classifier, signer);
  };
  return { run: setup.exitOnText === undefined ? run : exitingOn(setup.exitOnText, run), info: { classifierId: classifier?.id } };
});

/** Tests only (ComputeWorkerSetup.exitOnText): the thread exits on a job that classifies `text`; installed only when asked for. */
function exitingOn(text: string, run: (job: ComputeJob) => Promise<ComputeResult>): (job: ComputeJob) => Promise<ComputeResult> {
  return async (job) => {
    if (job.kind === "classify" ? job.text === text : (job.kind === "answer-json" || job.kind === "answer-rpc") && job.texts.includes(text)) process.exit(1);
    return run(job);
  };
}

/** A parse-json job: the route's own parser, its refusal (an ApiError) answered as a value. */
function parseJson(body: Uint8Array): ComputeResult {
  const requestDigest = sha256DigestHeader(body);
  try {
    return { parsed: parseJsonBody(body), requestDigest };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { refused: { code: error.code, message: error.message }, requestDigest };
  }
}

/**
 * Reads every text, and together those with text to read, as the event loop's moderate() does
 * (readTexts), and assembles the answer.
 */
async function answerTexts(job: { texts: string[]; answerId: string }, classifier: TextClassifier) {
  const read = readTexts(job.texts.map((text, index) => ({ index, text })), (text) => classifier.classify(text));
  const [items, together] = await Promise.all([Promise.all(read.verdicts.values()), read.combined]);
  const verdicts = items.map(encodeVerdict);
  const combined = together && encodeVerdict(together.verdict);
  // Assembled from the encoded verdicts, exactly what the parent of an answer-rpc job receives and
  // assembles from (assembleAnswerFromEncoded), so its message and what is signed here say the same.
  // (An answer-json job's parent reads the message back from the JSON rendered here instead.)
  const answer = assembleAnswerFromEncoded(job.answerId, classifier.id, verdicts, combined);
  return { verdicts, combined, answer };
}

/** A JSON-route answer, rendered by the route's own renderer exactly as send-json.ts sends it, and signed. */
async function answerJson(job: Extract<ComputeJob, { kind: "answer-json" }>, classifier: TextClassifier, signer: Signer) {
  const { answer } = await answerTexts(job, classifier);
  const json = moderateAnswerJsonText(textAnswerMessage(answer));
  const signed = await signOutcome(signer, { kind: "json", status: 200, json, requestBody: latin1ToBytes(job.requestBody), nowMs: job.nowMs, scope: job.scope });
  return { flagged: answer.flagged, hasCombined: answer.combined !== undefined, hasNotEvaluated: answer.notEvaluated !== undefined, json: signed.json, byteLength: signed.byteLength, headers: signed.headers };
}

/** An RPC answer's signature metadata, over its canonical bytes, as the signing interceptor makes it. */
async function answerRpc(job: Extract<ComputeJob, { kind: "answer-rpc" }>, classifier: TextClassifier, signer: Signer) {
  const { verdicts, combined, answer } = await answerTexts(job, classifier);
  const metadata = await signOutcome(signer, { kind: "rpc-answer", schema: ModerateResponseSchema, message: textAnswerMessage(answer), requestBytes: latin1ToBytes(job.requestBytes), nowMs: job.nowMs, scope: job.scope });
  return { verdicts, combined, metadata };
}
