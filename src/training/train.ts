/**
 * `npm run train`: read ../shared/datasets, map labels, compare model families with
 * leave-one-dataset-out evaluation, train the winner, calibrate, choose thresholds, and write
 * models/text-moderation.bin plus models/evaluation.json and models/README.md.
 *
 * Flags: --seed N, --epochs N, --folds a,b,c (held-out datasets), --families linear,embedding-mlp,
 * --quick (no held-out-dataset evaluation; for iterating on features).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CATEGORY_IDS } from "../classifiers/categories.js";
import { buildModelFile } from "./build-model.js";
import { buildCorpus, type Corpus } from "./corpus.js";
import { readAll } from "./datasets/index.js";
import { datasetsRoot } from "./datasets/files.js";
import { meanFoldAuprc, scoreHeldOut, summarize, type HeldOut } from "./evaluate.js";
import { writeReport } from "./report.js";
import { trainLinear } from "./train-linear.js";
import { trainMlp } from "./train-mlp.js";
import type { TrainedModel } from "./trainer.js";

const MODEL_VERSION = "2026-11-a";
const HASHING = { buckets: 1 << 18, minN: 3, maxN: 5 };
const WINDOW = { size: 480, stride: 240 };
// Held out one at a time: every dataset with positives that is not a near-copy of another's style,
// plus the benign look-alike sets whose false-positive rate the issue asks for.
const DEFAULT_FOLDS = ["hatecheck", "xstest", "toxic-spans", "implicit-hate", "reddit-cssrs-suicide", "adversarial-nibbler", "ailuminate-demo"];
const FAMILIES: Record<string, (c: Corpus, rows: Uint32Array, heads: number[], seed: number, epochs: number) => TrainedModel> = {
  linear: (c, rows, heads, seed, epochs) => trainLinear(c, rows, HASHING.buckets, { heads, seed, epochs }),
  "embedding-mlp": (c, rows, heads, seed, epochs) => trainMlp(c, rows, HASHING.buckets, { heads, seed, epochs }),
};

const { values } = parseArgs({
  options: {
    seed: { type: "string", default: "20261101" },
    epochs: { type: "string", default: "3" },
    "fold-epochs": { type: "string", default: "2" },
    folds: { type: "string" },
    families: { type: "string", default: "linear,embedding-mlp" },
    quick: { type: "boolean", default: false },
  },
});
const seed = Number(values.seed);
const epochs = Number(values.epochs);
const foldEpochs = Number(values["fold-epochs"]);
const folds = values.folds ? values.folds.split(",") : DEFAULT_FOLDS;
const families = values.families.split(",").filter((f) => FAMILIES[f]);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const modelsDir = join(repoRoot, "models");
// sexual_minors has too little public data to learn honestly: it is a rule over sexual + minor evidence.
const heads = CATEGORY_IDS.map((_, i) => i).filter((i) => CATEGORY_IDS[i] !== "sexual_minors");

const started = Date.now();
const log = (msg: string): void => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${msg}`);

const examples = readAll(datasetsRoot());
log(`read ${examples.length} labelled rows from ${datasetsRoot()}`);
const corpus = buildCorpus(examples, { hashing: HASHING, window: WINDOW, seed, calibrationShare: 0.15, datasetCap: 6000 });
log(`featurised ${corpus.rows} rows (${corpus.feats.length} features)`);

const rowsWhere = (pred: (r: number) => boolean): Uint32Array => Uint32Array.from({ length: corpus.rows }, (_, i) => i).filter(pred);

function fit(family: string, exclude: number | undefined, id: string, training: Record<string, unknown> = {}): ReturnType<typeof buildModelFile> {
  const n = exclude === undefined ? epochs : foldEpochs;
  const train = rowsWhere((r) => corpus.split[r] === 0 && corpus.dataset[r] !== exclude);
  const calib = rowsWhere((r) => corpus.split[r] === 1 && corpus.dataset[r] !== exclude);
  const trained = FAMILIES[family]!(corpus, train, heads, seed, n);
  return buildModelFile({ id, corpus, calibrationRows: calib, trained, heads, hashing: HASHING, window: WINDOW, training });
}

const heldOut: Record<string, HeldOut[]> = {};
const selection: Record<string, { mean: number; pairs: number; seconds: number }> = {};
if (!values.quick) {
  for (const family of families) {
    const t0 = Date.now();
    heldOut[family] = [];
    for (const d of folds) {
      const idx = corpus.datasets.indexOf(d);
      if (idx < 0) continue;
      const { model } = fit(family, idx, `lodo-${family}-${d}`);
      heldOut[family]!.push(scoreHeldOut(model, examples, d));
      log(`${family}: held out ${d}`);
    }
    selection[family] = { ...meanFoldAuprc(heldOut[family]!), seconds: (Date.now() - t0) / 1000 };
    log(`${family}: mean held-out-dataset AUPRC ${selection[family]!.mean.toFixed(3)} over ${selection[family]!.pairs} (dataset, category) pairs`);
  }
}
const winner = families.reduce((best, f) => ((selection[f]?.mean ?? -1) > (selection[best]?.mean ?? -1) ? f : best), families[0] ?? "linear");
log(`winner: ${winner}`);

const id = `text-${winner}-${MODEL_VERSION}`;
const training = {
  seed, epochs, foldEpochs, datasets: corpus.datasets, rows: corpus.rows, hashing: HASHING, window: WINDOW,
  selection,
};
const out = fit(winner, undefined, id, training);
mkdirSync(modelsDir, { recursive: true });
writeFileSync(join(modelsDir, "text-moderation.bin"), out.bytes);
log(`wrote models/text-moderation.bin (${(out.bytes.length / 1e6).toFixed(2)} MB), id ${id}`);

const evaluation = {
  id, winner, selection, folds,
  calibration: out.reports,
  seconds: Math.round((Date.now() - started) / 1000),
  heldOut: Object.fromEntries(Object.entries(heldOut).map(([f, rs]) => [f, {
    pooled: summarize(rs),
    perDataset: rs.map((r) => ({ dataset: r.dataset, benign: r.benign, benignFlagged: r.benignFlagged, slices: r.slices, categories: summarize([r]) })),
  }])),
  training,
};
writeFileSync(join(modelsDir, "evaluation.json"), `${JSON.stringify(evaluation, null, 1)}\n`);
writeReport(join(modelsDir, "README.md"), evaluation);
log("wrote models/evaluation.json and models/README.md");
