import { closeSync, openSync, readSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CategoryId } from "../categories.js";
import type { HashingSpec } from "./features.js";
import type { WindowSpec } from "./windows.js";

/**
 * One versioned binary file: 8-byte magic, uint32 header length, JSON header, then the tensors,
 * each 4-byte aligned. Weights are int8 (with float scales) so the file stays a few MB in git.
 */
const MAGIC = Buffer.from("MODTXT\u0000\u0001", "latin1");

/** The committed model, resolved from this module so it works from any working directory. */
export const DEFAULT_MODEL_PATH = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "models", "text-moderation.bin");

export interface Platt {
  a: number;
  b: number;
}

export interface TensorEntry {
  name: string;
  dtype: "int8" | "float32";
  length: number;
  offset: number;
}

export interface ModelHeader {
  format: "moderation-text-model";
  version: 1;
  id: string;
  family: "linear" | "embedding-mlp" | "conv";
  /** Categories with a learned head, in head order. */
  heads: CategoryId[];
  hashing: HashingSpec;
  window: WindowSpec;
  /** Per learned head: calibrated score = sigmoid(a * logit + b). */
  calibration: Partial<Record<CategoryId, Platt>>;
  /** Flag thresholds on calibrated scores, chosen on held-out rows (and rule thresholds). */
  thresholds: Partial<Record<CategoryId, number>>;
  /**
   * Bars the rules read as "the learned head agrees" (support for a phrase, an insult said of
   * someone else), where they differ from the flag thresholds: flags are held to a stricter
   * false-positive budget than the head's support needs (heldout-calibration.ts). Absent: the
   * flag thresholds.
   */
  supportThresholds?: Partial<Record<CategoryId, number>>;
  /** Thresholds of the transparent lexicon evidence (see lexicon/). */
  lexicon: { sexual: number; graphicViolence: number };
  /** Scalars of the family (scales, dims). */
  params: Record<string, number>;
  tensors: TensorEntry[];
  /** Provenance: seed, datasets, row counts, timings. Informational. */
  training: Record<string, unknown>;
  /** Languages (BCP-47) the training text covers; absent: English only (language/language-gate.ts). */
  languages?: string[];
}

export interface ModelFile {
  header: ModelHeader;
  tensors: Map<string, Int8Array | Float32Array>;
}

export function encodeModel(header: Omit<ModelHeader, "tensors">, tensors: Record<string, Int8Array | Float32Array>): Buffer {
  const entries: TensorEntry[] = [];
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    entries.push({ name, dtype: t instanceof Int8Array ? "int8" : "float32", length: t.length, offset });
    offset += Math.ceil(t.byteLength / 4) * 4;
  }
  const json = Buffer.from(JSON.stringify({ ...header, tensors: entries }), "utf8");
  const headerBytes = Math.ceil((12 + json.length) / 4) * 4;
  const out = Buffer.alloc(headerBytes + offset);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(json.length, 8);
  json.copy(out, 12);
  for (const e of entries) {
    const t = tensors[e.name]!;
    Buffer.from(t.buffer, t.byteOffset, t.byteLength).copy(out, headerBytes + e.offset);
  }
  return out;
}

export function decodeModel(buf: Buffer): ModelFile {
  if (buf.length < 12 || !buf.subarray(0, 8).equals(MAGIC)) throw new Error("not a moderation text model file (bad magic)");
  const len = buf.readUInt32LE(8);
  // A file cut inside its header would otherwise fail as unreadable JSON, not as what it is.
  if (buf.length < 12 + len) throw new Error("model file truncated in its header");
  const header = JSON.parse(buf.toString("utf8", 12, 12 + len)) as ModelHeader;
  if (header.format !== "moderation-text-model" || header.version !== 1) throw new Error(`unsupported model format ${header.format} v${header.version}`);
  const base = Math.ceil((12 + len) / 4) * 4;
  // Tensors are views of the body, and a Float32Array view needs a 4-byte aligned offset. A file
  // read whole has its own buffer (aligned, used as is: no 34 MB copy at load); a Buffer from a pool
  // may be an unaligned view, copied then.
  const body = (buf.byteOffset + base) % 4 === 0 ? new Uint8Array(buf.buffer, buf.byteOffset + base, buf.length - base) : Uint8Array.from(buf.subarray(base));
  const tensors = new Map<string, Int8Array | Float32Array>();
  for (const e of header.tensors) {
    if (e.offset + e.length * (e.dtype === "int8" ? 1 : 4) > body.length) throw new Error(`model file truncated at tensor ${e.name}`);
    const at = body.byteOffset + e.offset;
    tensors.set(e.name, e.dtype === "int8" ? new Int8Array(body.buffer, at, e.length) : new Float32Array(body.buffer, at, e.length));
  }
  return { header, tensors };
}

/**
 * The header alone (thresholds, id, heads), read without loading the tensors: for places that
 * show the model's settings (the dashboard's policy page) on a thread that never scores text.
 */
export function readModelHeader(modelPath: string = DEFAULT_MODEL_PATH): Omit<ModelHeader, "tensors"> {
  const fd = openSync(modelPath, "r");
  try {
    const prefix = Buffer.alloc(12);
    readSync(fd, prefix, 0, 12, 0);
    if (!prefix.subarray(0, 8).equals(MAGIC)) throw new Error("not a moderation text model file (bad magic)");
    const json = Buffer.alloc(prefix.readUInt32LE(8));
    if (readSync(fd, json, 0, json.length, 12) !== json.length) throw new Error("model file truncated in its header");
    return JSON.parse(json.toString("utf8")) as ModelHeader;
  } finally {
    closeSync(fd);
  }
}
