/**
 * Re-renders the model card (models/README.md) from models/evaluation.json without retraining or
 * rescoring: `npx tsx src/training/card.ts [--comparison a.json,b.json] [--dir models]`. With
 * --comparison, the compare files replace the family comparison in evaluation.json first (the same
 * merge as `npm run train -- --comparison`), e.g. to add a family another engineer trained on the
 * same subsample and folds; --full-comparison likewise for the full-scale comparison (GPU families,
 * training/transformer/README.md).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { mergeComparisons } from "./comparison.js";
import { writeReport, type Evaluation } from "./report.js";

const { values } = parseArgs({
  options: {
    dir: { type: "string", default: join(dirname(fileURLToPath(import.meta.url)), "..", "..", "models") },
    comparison: { type: "string" },
    "full-comparison": { type: "string" },
  },
});
const file = join(values.dir, "evaluation.json");
const ev = JSON.parse(readFileSync(file, "utf8")) as Evaluation;
if (values.comparison) ev.comparison = mergeComparisons(values.comparison.split(","));
if (values["full-comparison"]) ev.fullComparison = mergeComparisons(values["full-comparison"].split(","));
if (values.comparison || values["full-comparison"]) writeFileSync(file, `${JSON.stringify(ev, null, 1)}\n`);
writeReport(join(values.dir, "README.md"), ev);
console.log(`wrote ${join(values.dir, "README.md")}`);
