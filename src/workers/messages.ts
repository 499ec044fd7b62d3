import type { KeyObject } from "node:crypto";
import type { ClassifyOptions } from "../classifiers/classifier.js";
import type { ErrorCode } from "../errors/api-error.js";
import type { HttpSignatureHeaders } from "../signing/http-signature.js";
import type { SignatureScope } from "../signing/scope.js";
import type { EncodedVerdict } from "./verdict-codec.js";

/** What each compute worker is set up with; the pool hands it to the worker's set-up. */
export interface ComputeWorkerSetup {
  /** Which text classifier to load, as TEXT_CLASSIFIER names it; absent: no classify jobs. */
  textClassifier?: "trained" | "pattern";
  /** The active Ed25519 signing key (KeyObjects are cloned into workers safely); absent: no sign jobs. */
  signingKey?: KeyObject;
  /** Its key id, named in the signatures of answers the worker renders (answer-json jobs). */
  signingKeyId?: string;
  /** Shared memory the worker records each text's classification time into (src/observability/shared-timings.ts). */
  classifierTimings?: BigInt64Array;
  /** Tests only: the worker thread exits when asked to classify exactly this text. */
  exitOnText?: string;
}

/**
 * Jobs and results as they cross threads. Bytes travel as latin1 strings (byte-strings.ts),
 * not Uint8Arrays, which cost several microseconds each to clone; the pool converts at its edge.
 */
export type ComputeJob =
  /** `explainFrom`: a policy's thresholds, whose categories are explained where they reach them (ClassifyOptions). */
  | { kind: "classify"; text: string; explainFrom?: ClassifyOptions["explainFrom"] }
  | { kind: "sign"; data: string }
  /**
   * A JSON-route Moderate call of text items only, answered whole: classify each text (and
   * together those with text to read, and short neighbouring pairs: moderation/read-texts.ts),
   * assemble the answer with id `answerId`, render it as the route would and sign it for the
   * request body `requestBody` and `scope` at time `nowMs`.
   */
  | { kind: "answer-json"; texts: string[]; answerId: string; requestBody: string; nowMs: number; scope: SignatureScope }
  /**
   * The same for a gRPC / gRPC-Web / Connect call: the answer's canonical protobuf bytes are
   * signed for the request's canonical bytes `requestBytes` (what the signing interceptor signs).
   */
  | { kind: "answer-rpc"; texts: string[]; answerId: string; requestBytes: string; nowMs: number; scope: SignatureScope }
  /**
   * A large JSON-route body parsed as the route would (moderation/json-body-value.ts
   * parseJsonBody), and its SHA-256 digest header (the answer's signature names it). The bytes
   * are a view of shared memory when the body was read into it (base/body-buffer.ts): nothing is
   * copied to post them.
   */
  | { kind: "parse-json"; body: Uint8Array };

export type ComputeResult =
  | { verdict: EncodedVerdict }
  | { signature: string }
  /**
   * json (UTF-8 on the wire) and headers are what the route sends; the parent reads the answer
   * message back from json only if something asks for more than `flagged` (lazy-text-answer.ts).
   */
  | { flagged: boolean; hasCombined: boolean; hasNotEvaluated: boolean; json: string; byteLength: number; headers: HttpSignatureHeaders }
  /** The verdicts, and the signature metadata for the answer's canonical bytes. */
  | { verdicts: EncodedVerdict[]; combined: EncodedVerdict | undefined; metadata: Record<string, string> }
  /** A parse-json job's value, or the refusal parseJsonBody raised (its ApiError's code and message). */
  | { parsed: unknown; requestDigest: string }
  | { refused: { code: ErrorCode; message: string }; requestDigest: string };
