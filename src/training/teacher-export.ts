import { mkdirSync, writeFileSync } from "node:fs";
import { scorerOf } from "../classifiers/engine/engine.js";
import type { ModelFile } from "../classifiers/model/model-file.js";
import type { Corpus } from "./corpus.js";
import { teacherFile } from "./train-mlp.js";
import { rowLogits } from "./window-logits.js";

/**
 * A trained model's probabilities for every corpus row, in the layout train.ts --teacher reads
 * (train-mlp.ts TeacherTargets: rows x heads, round(255 p)), so that one of the project's own fold
 * models can teach the next run what the GPU transformer taught in session 17. Raw sigmoid of the
 * model's logits, not the Platt-calibrated score: the student learns the teacher's own scale.
 */
export function teacherTargetsOf(model: ModelFile, corpus: Corpus): Uint8Array {
  const scorer = scorerOf(model);
  const K = scorer.heads;
  const out = new Uint8Array(corpus.rows * K);
  const logits = new Float64Array(K);
  for (let r = 0; r < corpus.rows; r++) {
    rowLogits(scorer, corpus, r, logits);
    for (let k = 0; k < K; k++) out[r * K + k] = Math.round(255 / (1 + Math.exp(-logits[k]!)));
  }
  return out;
}

/** Writes the targets where train.ts --teacher DIR reads them (train-mlp.ts teacherFile). */
export function writeTeacherTargets(dir: string, name: string, model: ModelFile, corpus: Corpus): string {
  mkdirSync(dir, { recursive: true });
  const file = teacherFile(dir, name);
  writeFileSync(file, teacherTargetsOf(model, corpus));
  return file;
}

/**
 * round(255 p) back to a logit; 0 and 255 are read as a quarter step inside (0, 1), so that two
 * teachers that agree on 0 (or 255) blend back to exactly that.
 */
const logitOf = (v: number): number => {
  const p = Math.min(254.75, Math.max(0.25, v)) / 255;
  return Math.log(p / (1 - p));
};
const LOGIT = Float64Array.from({ length: 256 }, (_, v) => logitOf(v));

/**
 * Two teachers as one: per row and head, the sigmoid of the mean of both teachers' logits (the mean
 * of logits is how the engine averages members, and how session 17 paired the two families).
 */
export function blendTargets(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length !== b.length) throw new Error(`teachers differ in size: ${a.length} and ${b.length}`);
  const out = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = Math.round(255 / (1 + Math.exp(-(LOGIT[a[i]!]! + LOGIT[b[i]!]!) / 2)));
  return out;
}
