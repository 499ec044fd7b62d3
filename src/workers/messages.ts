import type { KeyObject } from "node:crypto";
import type { EncodedVerdict } from "./verdict-codec.js";

/** What each compute worker is set up with; the parent passes it as workerData. */
export interface ComputeWorkerSetup {
  /** Which text classifier to load, as TEXT_CLASSIFIER names it; absent: no classify jobs. */
  textClassifier?: "trained" | "pattern";
  /** The active Ed25519 signing key (KeyObjects are cloned into workers safely); absent: no sign jobs. */
  signingKey?: KeyObject;
  /** Tests only: the worker thread exits when asked to classify exactly this text. */
  exitOnText?: string;
}

export type ComputeJob =
  | { id: number; kind: "classify"; text: string }
  | { id: number; kind: "sign"; data: Uint8Array };

export type ComputeResult =
  | { id: number; ok: true; verdict: EncodedVerdict }
  | { id: number; ok: true; signature: Uint8Array }
  | { id: number; ok: false; message: string };

/** Parent → worker: every job queued during one event-loop turn, in one message. */
export interface JobBatch {
  batch: number;
  jobs: ComputeJob[];
}

/** Worker → parent. */
export type WorkerReply =
  | { type: "ready"; classifierId: string | undefined }
  | { type: "fatal"; message: string }
  | { type: "results"; batch: number; results: ComputeResult[] };
