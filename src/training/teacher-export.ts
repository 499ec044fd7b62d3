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
