/**
 * Blends two teachers' targets (train-mlp.ts TeacherTargets files) into one: per row and head, the
 * sigmoid of the mean of both teachers' logits, the same mean of logits that scored best model alone
 * in session 17 (MLP + transformer 0.408 against 0.391 for the transformer). The transformer alone
 * taught its own false positives on everyday sentences; the project's MLP flags fewer of them, so
 * the blend keeps the transformer's word-order knowledge at half its voice.
 *
 *   npx tsx src/training/teacher-blend.ts --a /work/cache/tfull --b /work/cache/mlpteach --out /work/cache/blend
 *
 * Every teacher-<name>.u8 present in both --a and --b is blended (the folds and "final").
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { blendTargets } from "./teacher-export.js";
import { readTeacherProbs, teacherFile, teacherNames } from "./train-mlp.js";

const { values } = parseArgs({ options: { a: { type: "string" }, b: { type: "string" }, out: { type: "string" } } });
if (!values.a || !values.b || !values.out) throw new Error("usage: teacher-blend.ts --a DIR --b DIR --out DIR");

mkdirSync(values.out, { recursive: true });
for (const name of teacherNames(values.a)) {
  if (!existsSync(teacherFile(values.b, name))) continue;
  const blended = blendTargets(readTeacherProbs(values.a, name), readTeacherProbs(values.b, name));
  writeFileSync(teacherFile(values.out, name), blended);
  console.log(`${name}: ${blended.length} targets`);
}
