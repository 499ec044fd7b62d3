/**
 * `npm run train`: read ../shared/datasets, map labels, compare model families with
 * leave-one-dataset-out evaluation, train the winner, calibrate, choose thresholds, and write
 * models/text-moderation.bin plus models/evaluation.json and models/README.md.
 *
 * Flags: --seed N, --epochs N, --fold-epochs N, --folds a,b,c (held-out datasets),
 * --families linear,embedding-mlp,conv, --datasets a,b (read only these; smoke tests), --out DIR
 * (default models/; train into a scratch directory to compare before replacing the committed model),
 * --cache DIR (fold and final weights, default $TMPDIR/text-moderation-train-cache), --reuse (load them
 * instead of training: recompute calibration, thresholds and report in about a minute), --keep-model
 * (with --reuse: evaluate and report the model file already in --out, whose weights must be the cached
 * shipped model's, without replacing it: a fuller evaluation that changes no behaviour), --max-fpr X,
 * --quick (no held-out-dataset evaluation; for iterating on features), --dim N, --hidden N, --lr X
 * (embedding-mlp shape and AdaGrad step size), --lookalike-weight X (weight of benign look-alike rows),
 * --identity-words keep|drop|placeholder (how words naming protected groups are hashed; see
 * src/classifiers/model/identity-words.ts and docs/model-history.md), --unlabel dataset:category,...
 * (those labels train nothing: what one source adds to one category), --char-ngrams MIN-MAX
 * (character n-gram lengths hashed beside the words, default 3-5; recorded in the model file, so
 * inference hashes the same), --prose-evidence-bar X (the lexicon evidence a long-form prose chunk
 * needs to become a sexual or violence positive; 0.2), --wording-unknowns cssrs (default), insults
 * or none (labels the text does not support made unknown in training and calibration,
 * wording-unknowns.ts), --teacher DIR (a GPU-trained transformer's soft targets) and --expert
 * (one more member for some heads): each option's comment below says what it does.
 *
 * Probes tried and not kept (docs/model-history.md has each one's figures) were removed in
 * session 48 to keep this path readable; their code is at commit 194457b: feature dropout,
 * self-supervised pretraining and GloVe word rows of the feature table, label cleaning, per-source
 * offsets, focal loss, a second pooling (maximum, attention), short tokens, group names, frequent
 * words and benign sentences as texts, mixed positives, decorated rows, prevention-talk weight and
 * sexual-unknown rows.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { CATEGORY_IDS } from "../classifiers/categories.js";
import type { HashingSpec } from "../classifiers/model/features.js";
import { buildModelFile, type CalibrateBy, type HeadReport } from "./build-model.js";
import { buildCorpus, inCalibrationSplit, type Corpus } from "./corpus.js";
import { PARENT } from "./datasets/example.js";
import { readAll } from "./datasets/index.js";
import { hashString } from "./prng.js";
import { datasetsRoot } from "./datasets/files.js";
import { decodeModel, encodeModel, type ModelFile } from "../classifiers/model/model-file.js";
import { DEFAULT_MAX_FPR, fitFlagsAndSupport, heldOutLogits, withCalibration, type FoldLogits, type GuardRows, type HeldOutCalibration } from "./heldout-calibration.js";
import { anyHarmAuprc, calibrationSplitConfusion, confusionTable, inDomain, meanFoldAuprc, scoreHeldOut, summarize, type HeldOut } from "./evaluate.js";
import { writeReport, type Evaluation } from "./report.js";
import { mergeComparisons } from "./comparison.js";
import { trainLinear } from "./train-linear.js";
import { writeTeacherTargets } from "./teacher-export.js";
import { readTeacherTargets, trainMlp, type PositiveWindows, type TeacherTargets } from "./train-mlp.js";
import { trainConv } from "./train-conv.js";
import type { TrainedModel } from "./trainer.js";
import { parseWordingRepairs, withWordingUnknowns } from "./wording-unknowns.js";
import { ensembleOf, expertRows, memberSeed, parseExpert, withExpert } from "./ensemble.js";
import { CALIBRATION_SHARE, CORPUS_CAPS, DEFAULT_FOLDS, DEFAULT_HASHING, DEFAULT_SEED, DEFAULT_SHAPE, HASHING_DEFAULTS, hashRow, learnedHeads, SHIPPED_MEMBER, WINDOW } from "./settings.js";

// The shipped model's id: `2026-12-c`, C-SSRS posts without self-harm wording unknown in training
// and calibration (session 44). `2026-12-b` was a retrain shipped for an hour and reverted (session 36).
const MODEL_VERSION = "2026-12-c";
/** The shipped model's id (and cache entry's id) for a family. */
const shippedId = (family: string): string => `text-${family}-${MODEL_VERSION}`;
// Expert-labelled Reddit traffic (CAD, corpus.ts REAL_TRAFFIC) counts as at most TRAFFIC_CAP rows
// (Infinity, the default: in full).
const { everydayCap: EVERYDAY_CAP, noisyCap: NOISY_CAP, trafficCap: TRAFFIC_CAP, trafficWeight: TRAFFIC_WEIGHT } = CORPUS_CAPS;

const { values } = parseArgs({
  options: {
    seed: { type: "string", default: String(DEFAULT_SEED) },
    // The shipped model trains as long as the fold models, so the held-out calibration fitted on
    // the folds' logits transfers to it.
    epochs: { type: "string", default: String(SHIPPED_MEMBER.epochs) },
    "fold-epochs": { type: "string" },
    folds: { type: "string" },
    // The linear family lost the last comparison (docs/model-history.md); `--families linear,embedding-mlp`
    // re-runs it (about 6 more minutes).
    families: { type: "string", default: "embedding-mlp" },
    datasets: { type: "string" },
    out: { type: "string" },
    cache: { type: "string" },
    reuse: { type: "boolean", default: false },
    "keep-model": { type: "boolean", default: false },
    "max-fpr": { type: "string" },
    // Rows the benign guard bounds at --max-fpr (heldout-calibration.ts GuardRows).
    "guard-rows": { type: "string", default: "safe" },
    // Thresholds: "guard" (default: random-split best F1, raised by the held-out benign guard),
    // "heldout" (best F1 on the folds' pooled held-out scores, plus the guard), "refit" (also refit
    // Platt on the held-out logits), "random" (random-split best F1 only). See docs/model-history.md.
    policy: { type: "string", default: "guard" },
    // evaluation.json of the model being replaced (default: the one in the output directory), for before/after columns.
    previous: { type: "string" },
    // compare.json of a --compare-only run, reported in the model card as the family comparison ("none": drop the one the card had).
    comparison: { type: "string" },
    // transformer-score.ts --compare files of a full-scale run (training/transformer/gpu_run.py),
    // reported in the card as the full-scale family comparison.
    "full-comparison": { type: "string" },
    quick: { type: "boolean", default: false },
    // Stop after the family comparison: write compare.json (per family: selection figure, pooled and
    // per-dataset held-out figures) to --out, train no final model.
    "compare-only": { type: "boolean", default: false },
    // Train the fold models into --cache and stop (no evaluation): run several at once with
    // different --folds, then one run with --reuse evaluates them and trains the shipped model
    // (unless a --folds list named "final" and it is in the cache already).
    "train-folds-only": { type: "boolean", default: false },
    // With --reuse: wait until this UTC time (HH:MM) for fold models that parallel runs are still
    // training, then go on with the folds that are there (the card lists the folds used).
    "wait-until": { type: "string" },
    // Score at most this many rows of each held-out dataset (a fixed hash sample; 0 = all). 2,500,
    // as every card since session 11 was made, so that a plain `npm run train` reproduces the card.
    "eval-cap": { type: "string", default: "2500" },
    // Network shape and step size of the embedding-mlp family (see docs/model-history.md for what was compared).
    dim: { type: "string", default: String(SHIPPED_MEMBER.dim) },
    hidden: { type: "string", default: String(SHIPPED_MEMBER.hidden) },
    lr: { type: "string", default: String(SHIPPED_MEMBER.lr) },
    // Filters of the conv family's width-3 convolution over token vectors.
    filters: { type: "string", default: String(DEFAULT_SHAPE.filters) },
    // Train on at most this share of the training rows (family comparisons on a budget; the card says so).
    subsample: { type: "string", default: "1" },
    "lookalike-weight": { type: "string", default: String(CORPUS_CAPS.lookalikeWeight) },
    // Each dataset counts as at most this many rows (corpus.ts weight); everyday and noisy sets have their own caps.
    "dataset-cap": { type: "string", default: String(CORPUS_CAPS.datasetCap) },
    // Hash buckets of the feature table (n-grams share a row when their hashes collide).
    buckets: { type: "string", default: String(DEFAULT_HASHING.buckets) },
    "char-ngrams": { type: "string", default: `${HASHING_DEFAULTS.minN}-${HASHING_DEFAULTS.maxN}` },
    "identity-words": { type: "string", default: "placeholder" },
    // dataset:category pairs, comma-separated, whose labels train nothing (made unknown in the
    // training rows, kept for evaluation): what one source's labels of one category add.
    unlabel: { type: "string" },
    // Labels the text does not support made unknown in the training and calibration rows (wording-unknowns.ts):
    // "cssrs" (C-SSRS posts without self-harm wording; since 2026-12-c), "insults" (insults labelled
    // harassment 0 by sources that did not judge abuse of the reader; measured, not kept), comma-separated; "none".
    "wording-unknowns": { type: "string", default: "cssrs" },
    // Lexicon evidence a long-form prose chunk needs to become a sexual or violence positive
    // (datasets/longform.ts; 0.2 by default).
    "prose-evidence-bar": { type: "string", default: "0.2" },
    // embedding-mlp models per file, trained alike from different seeds (ensemble.ts); the engine
    // averages their logits. Two since 2026-11-h (one: docs/model-history.md, session 14), four
    // since 2026-11-k (session 23: fewer hand-written sentences decided by one network's draw).
    members: { type: "string", default: "4" },
    // One more embedding-mlp member trained on some datasets' rows only, counted for some heads
    // only (ensemble.ts ExpertSpec): "DATASETS:HEADS:WEIGHT", e.g.
    // "cad-reddit-abuse,clinc150:harassment:4". A fold model that holds out one of DATASETS has no
    // expert. Absent (or "none"): no expert, as shipped (a CAD harassment expert was measured
    // and not kept: docs/model-history.md, session 29).
    expert: { type: "string" },
    // Soft targets from the GPU-trained transformer (training/transformer/: gpu_run.py, then
    // unpack_scores.py): DIR/teacher-<held-out dataset>.u8 for a fold model, DIR/teacher-final.u8 for
    // the shipped one. A head a row's source does not label learns the teacher's probability, at
    // --teacher-weight of a given label (train-mlp.ts TeacherTargets). Absent: labels only.
    teacher: { type: "string" },
    "teacher-weight": { type: "string", default: "0.5" },
    // Comma-separated categories that learn the teacher (default: every learned head).
    "teacher-heads": { type: "string" },
    // Which windows of a long positive text learn its label (embedding-mlp): "all", or "max" (the
    // window the model scores highest, from the second epoch; train-mlp.ts PositiveWindows).
    "positive-windows": { type: "string", default: SHIPPED_MEMBER.positiveWindows },
    // Platt points: each calibration text at its highest window's logit ("example", as the engine
    // scores long text; the default since 2026-11-l, docs/model-history.md sessions 22 and 24), or
    // each calibration window with its text's label ("window", models before it).
    "calibrate-by": { type: "string", default: "example" },
    // With --train-folds-only: also write each fold model's own probabilities for every corpus row
    // to DIR/teacher-<fold>.u8 (teacher-export.ts), the --teacher input of a self-distilled run.
    "export-teacher": { type: "string" },
  },
});
// Benign look-alike rows (corpus.ts isLookalike) count this many times in training.
const LOOKALIKE_WEIGHT = Number(values["lookalike-weight"]);
// Words naming protected groups add no features (src/classifiers/lexicon/identity-words.ts).
const IDENTITY_MODES = { keep: undefined, drop: "drop", placeholder: "placeholder" } as const;
const identityMode = values["identity-words"] as keyof typeof IDENTITY_MODES;
if (!(identityMode in IDENTITY_MODES)) throw new Error(`--identity-words must be keep, drop or placeholder; got "${identityMode}"`);
const identityWords = IDENTITY_MODES[identityMode];
const charNgrams = /^(\d)-(\d)$/.exec(values["char-ngrams"]);
if (!charNgrams || Number(charNgrams[1]) < 1 || Number(charNgrams[1]) > Number(charNgrams[2])) throw new Error(`--char-ngrams must be MIN-MAX lengths, such as 3-5; got "${values["char-ngrams"]}"`);
const HASHING: HashingSpec = { buckets: Number(values.buckets), minN: Number(charNgrams[1]), maxN: Number(charNgrams[2]), ...(identityWords ? { identityWords } : {}) };
const MEMBERS = Number(values.members);
if (!(Number.isInteger(MEMBERS) && MEMBERS >= 1)) throw new Error(`--members must be a whole number of at least 1; got "${values.members}"`);
const POSITIVE_WINDOWS = values["positive-windows"] as PositiveWindows;
if (POSITIVE_WINDOWS !== "all" && POSITIVE_WINDOWS !== "max") throw new Error(`--positive-windows must be all or max; got "${POSITIVE_WINDOWS}"`);
const CALIBRATE_BY = values["calibrate-by"] as CalibrateBy;
if (CALIBRATE_BY !== "window" && CALIBRATE_BY !== "example") throw new Error(`--calibrate-by must be window or example; got "${CALIBRATE_BY}"`);
/** What a model's header and the report say about both (nothing when they are the defaults, as in models made before them). */
const WINDOW_LABELS = { ...(POSITIVE_WINDOWS === "all" ? {} : { positiveWindows: POSITIVE_WINDOWS }), ...(CALIBRATE_BY === "window" ? {} : { calibrateBy: CALIBRATE_BY }) };
const MLP = { dim: Number(values.dim), hidden: Number(values.hidden), lr: Number(values.lr) };
/** The teacher's targets for the model trained without `exclude` (the shipped model: "final"). */
function teacherFor(exclude: string | undefined): TeacherTargets | undefined {
  // trainMlp refuses targets whose row count is not the corpus's (packed from another corpus).
  return values.teacher ? readTeacherTargets(values.teacher, exclude ?? "final", Number(values["teacher-weight"]), TAUGHT_HEADS) : undefined;
}
/** The categories --teacher-heads names (absent: every learned head learns the teacher). */
const TEACHER_HEADS = values["teacher-heads"]?.split(",").map((n) => n.trim()).filter(Boolean);
/** What a model file's header says about its teacher. */
function teacherProvenance(): Record<string, unknown> {
  return { weight: Number(values["teacher-weight"]), ...(TEACHER_HEADS ? { heads: TEACHER_HEADS } : {}) };
}
const FAMILIES: Record<string, (c: Corpus, rows: Uint32Array, heads: number[], seed: number, epochs: number, teacher?: TeacherTargets, exclude?: string) => TrainedModel> = {
  linear: (c, rows, heads, seed, epochs) => trainLinear(c, rows, HASHING.buckets, { heads, seed, epochs }),
  "embedding-mlp": (c, rows, heads, seed, epochs, teacher, exclude) => {
    const member = (k: number, memberRows: Uint32Array): TrainedModel => {
      const s = memberSeed(seed, k);
      return trainMlp(c, memberRows, HASHING.buckets, { heads, seed: s, epochs, ...MLP, ...(teacher ? { teacher } : {}), positiveWindows: POSITIVE_WINDOWS });
    };
    const members = Array.from({ length: MEMBERS }, (_, k) => member(k, rows));
    if (!EXPERT || (exclude !== undefined && EXPERT.datasets.includes(exclude))) return ensembleOf(members);
    return withExpert(members, member(MEMBERS, expertRows(c, rows, EXPERT)), heads, EXPERT);
  },
  conv: (c, rows, heads, seed, epochs) => trainConv(c, rows, HASHING.buckets, { heads, seed, epochs, ...MLP, filters: Number(values.filters) }),
};
const seed = Number(values.seed);
const SUBSAMPLE = Number(values.subsample);
const epochs = Number(values.epochs);
const foldEpochs = Number(values["fold-epochs"] ?? values.epochs);
// Flags: at most this share of held-out safe rows flagged per head (was 10% of benign look-alike
// rows, which let 12.8% of Reddit's neutral comments be flagged held out; docs/model-history.md).
const FLAG_MAX_FPR = 0.02;
const maxFpr = Number(values["max-fpr"] ?? (values["guard-rows"] === "safe" ? FLAG_MAX_FPR : DEFAULT_MAX_FPR));
const folds = values.folds ? values.folds.split(",") : DEFAULT_FOLDS;
const families = values.families.split(",").filter((f) => FAMILIES[f]);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const modelsDir = values.out ?? join(repoRoot, "models");
const heads = learnedHeads();
const EXPERT = parseExpert(values.expert, heads);
const WORDING_REPAIRS = parseWordingRepairs(values["wording-unknowns"]);
/** --teacher-heads as positions in `heads` (the targets' head order); checked before any training. */
const TAUGHT_HEADS = TEACHER_HEADS && new Set(TEACHER_HEADS.map((name) => {
  const k = heads.indexOf((CATEGORY_IDS as readonly string[]).indexOf(name));
  if (k < 0) throw new Error(`--teacher-heads: "${name}" is not a learned head (${heads.map((i) => CATEGORY_IDS[i]).join(", ")})`);
  return k;
}));

const started = Date.now();
const log = (msg: string): void => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${msg}`);

const read = readAll(datasetsRoot(), values.datasets?.split(","), { proseEvidenceBar: Number(values["prose-evidence-bar"]) });
const examples = read;
/** The rows evaluated: the datasets' own. */
const evaluated = read;
log(`read ${read.length} labelled rows from ${datasetsRoot()}`);
// Fold models and the shipped model's weights are cached, so calibration, thresholds and the report
// can be recomputed without retraining: `npm run train -- --reuse` (same seed, datasets, folds).
const cacheDir = values.cache ?? join(tmpdir(), "text-moderation-train-cache");
const cached = (name: string): string => join(cacheDir, `${name}.bin`);
mkdirSync(cacheDir, { recursive: true });
let corpus: Corpus | undefined;
function getCorpus(): Corpus {
  if (!corpus) {
    corpus = buildCorpus(examples, { hashing: HASHING, window: WINDOW, seed, calibrationShare: CALIBRATION_SHARE, datasetCap: Number(values["dataset-cap"]), everydayCap: EVERYDAY_CAP, noisyCap: NOISY_CAP, trafficCap: TRAFFIC_CAP, trafficWeight: TRAFFIC_WEIGHT, lookalikeWeight: LOOKALIKE_WEIGHT, sequences: families.includes("conv") });
    log(`featurised ${corpus.rows} rows (${corpus.feats.length} features)`);
  }
  return corpus;
}

const rowsWhere = (c: Corpus, pred: (r: number) => boolean): Uint32Array => Uint32Array.from({ length: c.rows }, (_, i) => i).filter(pred);

/** Trains (or, with --reuse, loads) one model: a fold model when `exclude` names a dataset. */
function fit(family: string, exclude: string | undefined, id: string, training: Record<string, unknown> = {}): { model: ModelFile; reports: HeadReport[] } {
  const name = exclude === undefined ? `final-${family}` : `lodo-${family}-${exclude}`;
  // --reuse takes what the cache has and trains the rest (folds can be trained by parallel runs).
  if (values.reuse && existsSync(cached(name))) {
    const model = decodeModel(readFileSync(cached(name)));
    return { model, reports: (model.header.training["calibrationReports"] ?? []) as HeadReport[] };
  }
  const c = getCorpus();
  const ex = exclude === undefined ? -1 : c.datasets.indexOf(exclude);
  const n = exclude === undefined ? epochs : foldEpochs;
  const train = rowsWhere(c, (r) => c.split[r] === 0 && c.dataset[r] !== ex && (SUBSAMPLE >= 1 || (hashRow(r, seed) < SUBSAMPLE)));
  const calib = rowsWhere(c, (r) => c.split[r] === 1 && c.dataset[r] !== ex);
  const teacher = teacherFor(exclude);
  const unlabelled = values.unlabel ? unlabelledCorpus(c, train, values.unlabel) : undefined;
  // The same unsupported labels would pull the calibration (and so the flag bars) towards them:
  // the calibration rows are repaired too (--unlabel touches training rows only, so the repaired
  // labels are the source's everywhere else).
  const repaired = WORDING_REPAIRS.length > 0 ? withWordingUnknowns(unlabelled ?? c, examples, Uint32Array.from([...train, ...calib]), WORDING_REPAIRS) : undefined;
  if (repaired) log(`--wording-unknowns: ${Object.entries(repaired.changed).map(([k, v]) => `${k} ${v}`).join(", ")} training and calibration labels made unknown`);
  const labelled = repaired?.corpus ?? unlabelled ?? c;
  const trained = FAMILIES[family]!(labelled, train, heads, seed, n, teacher, exclude);
  const built = buildModelFile({ id, corpus: repaired ? { ...c, labels: repaired.corpus.labels } : c, calibrationRows: calib, calibrateBy: CALIBRATE_BY, trained, heads, hashing: HASHING, window: WINDOW, training: { ...training, ...WINDOW_LABELS, ...(teacher ? { teacher: teacherProvenance() } : {}), ...(values.unlabel ? { unlabel: values.unlabel } : {}), ...(repaired ? { wordingUnknowns: repaired.changed } : {}), ...(EXPERT ? { expert: values.expert } : {}), datasets: c.datasets, rows: c.rows } });
  const { tensors: _entries, ...header } = built.model.header;
  writeFileSync(cached(name), encodeModel({ ...header, training: { ...header.training, calibrationReports: built.reports } }, Object.fromEntries(built.model.tensors)));
  return built;
}

/** The corpus with --unlabel's dataset:category labels (and their sub-categories') unknown in `train`. */
function unlabelledCorpus(c: Corpus, train: Uint32Array, pairs: string): Corpus {
  const H = CATEGORY_IDS.length;
  const labels = c.labels.slice();
  for (const pair of pairs.split(",")) {
    const [dataset = "", category = ""] = pair.split(":").map((part) => part.trim());
    const d = c.datasets.indexOf(dataset);
    if (d < 0) throw new Error(`--unlabel: no dataset "${dataset}" (pairs are dataset:category)`);
    const cats = [categoryIndex(category), ...Object.entries(PARENT).filter(([, p]) => p === category).map(([child]) => CATEGORY_IDS.indexOf(child as never))];
    let n = 0;
    for (const r of train) if (c.dataset[r] === d) for (const k of cats) if (labels[r * H + k] !== -1) { labels[r * H + k] = -1; n++; }
    log(`--unlabel ${pair}: ${n} training labels made unknown`);
  }
  return { ...c, labels };
}

function categoryIndex(name: string): number {
  const i = (CATEGORY_IDS as readonly string[]).indexOf(name.trim());
  if (i < 0 || !heads.includes(i)) throw new Error(`"${name}" is not a learned head`);
  return i;
}

function calibrate(fl: FoldLogits[]): HeldOutCalibration | undefined {
  if (values.policy === "random") return undefined;
  return fitFlagsAndSupport(fl, { maxFpr, refit: values.policy === "refit", guardOnly: values.policy === "guard", guardRows: values["guard-rows"] as GuardRows });
}

const present = new Set(examples.map((e) => e.dataset));
const EVAL_CAP = Number(values["eval-cap"]);
/** The rows of `dataset` scored held out: all, or a fixed sample of EVAL_CAP distinct texts. */
function evalRows(dataset: string): typeof examples {
  const rows = evaluated.filter((e) => e.dataset === dataset);
  if (EVAL_CAP <= 0) return rows;
  const distinct = [...new Set(rows.map((e) => e.text))].length;
  if (distinct <= EVAL_CAP) return rows;
  const share = EVAL_CAP / distinct;
  return rows.filter((e) => hashString(e.text, seed) % 100000 < share * 100000);
}
/** Polls for a fold model a parallel run is training; false once --wait-until has passed. */
function waitForFold(family: string, d: string): boolean {
  const file = cached(`lodo-${family}-${d}`);
  const until = values["wait-until"];
  if (!until) return true;
  const [h, m] = until.split(":").map(Number);
  const deadline = new Date();
  deadline.setUTCHours(h!, m!, 0, 0);
  while (!existsSync(file) && Date.now() < deadline.getTime()) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20000);
  return existsSync(file);
}
if (values["train-folds-only"]) {
  // "final" among --folds trains the shipped model (all datasets) in the same way.
  for (const family of families) for (const d of folds) if (present.has(d) || d === "final") {
    const exclude = d === "final" ? undefined : d;
    const { model } = fit(family, exclude, exclude === undefined ? shippedId(family) : `lodo-${family}-${d}`);
    log(`${family}: trained ${exclude === undefined ? "the shipped model" : `fold without ${d}`}`);
    if (values["export-teacher"]) log(`wrote ${writeTeacherTargets(values["export-teacher"], d, model, getCorpus())}`);
  }
  process.exit(0);
}
const heldOut: Record<string, HeldOut[]> = {};
const foldLogits: Record<string, FoldLogits[]> = {};
const selection: Record<string, { mean: number; pairs: number; seconds: number }> = {};
if (!values.quick) {
  for (const family of families) {
    const t0 = Date.now();
    heldOut[family] = [];
    foldLogits[family] = [];
    const models: { dataset: string; model: ModelFile }[] = [];
    // One family: train the shipped model first, while parallel runs may still be training folds.
    // Not waited for: --train-folds-only runs train folds only, so nobody else would make it.
    if (families.length === 1 && values.reuse && !values["compare-only"]) fit(family, undefined, shippedId(family));
    for (const d of folds) {
      if (!present.has(d)) continue;
      if (values.reuse && !waitForFold(family, d)) {
        log(`${family}: no fold model without ${d} by ${values["wait-until"]}; fold skipped`);
        continue;
      }
      const { model } = fit(family, d, `lodo-${family}-${d}`);
      models.push({ dataset: d, model });
      foldLogits[family]!.push(heldOutLogits(model, evalRows(d), d));
      log(`${family}: held out ${d}`);
    }
    // Nested, so the figures stay honest: each held-out dataset is scored with calibration and
    // thresholds fitted on the other folds' held-out logits only.
    for (const { dataset, model } of models) {
      const cal = calibrate(foldLogits[family]!.filter((f) => f.dataset !== dataset));
      heldOut[family]!.push(scoreHeldOut(cal ? withCalibration(model, cal) : model, evalRows(dataset), dataset));
      log(`${family}: scored ${dataset}`);
    }
    selection[family] = { ...meanFoldAuprc(heldOut[family]!), seconds: (Date.now() - t0) / 1000 };
    log(`${family}: mean held-out-dataset AUPRC ${selection[family]!.mean.toFixed(3)} over ${selection[family]!.pairs} (dataset, category) pairs`);
  }
}
if (values["compare-only"]) {
  mkdirSync(modelsDir, { recursive: true });
  const compare = Object.fromEntries(families.map((f) => [f, {
    selection: selection[f], pooled: summarize(heldOut[f] ?? []),
    perDataset: (heldOut[f] ?? []).map((r) => ({ dataset: r.dataset, benign: r.benign, benignFlagged: r.benignFlagged, categories: summarize([r]) })),
  }]));
  writeFileSync(join(modelsDir, "compare.json"), `${JSON.stringify({ subsample: SUBSAMPLE, folds, epochs: foldEpochs, compare }, null, 1)}\n`);
  log(`wrote ${modelsDir}/compare.json`);
  process.exit(0);
}
const winner = families.reduce((best, f) => ((selection[f]?.mean ?? -1) > (selection[best]?.mean ?? -1) ? f : best), families[0] ?? "linear");
log(`winner: ${winner}`);

const target = join(modelsDir, "text-moderation.bin");
// --keep-model: the model in --out stays as it is (its thresholds too); only the evaluation is redone.
const kept = values["keep-model"] ? decodeModel(readFileSync(target)) : undefined;
const id = kept?.header.id ?? shippedId(winner);
const usedFolds = heldOut[winner]?.map((r) => r.dataset) ?? [];
const base = fit(winner, undefined, id);
// Provenance only, and nothing that varies run to run (no timings): the file is byte-identical given the seed.
const training = {
  // Members as the model file has them (with --reuse, the cached model's, whatever --members says).
  seed, epochs, foldEpochs, mlp: MLP, ...((base.model.header.params["members"] ?? 1) > 1 ? { members: base.model.header.params["members"] } : {}), ...(values.teacher ? { teacher: teacherProvenance() } : {}), ...WINDOW_LABELS, lookalikeWeight: LOOKALIKE_WEIGHT, everydayCap: EVERYDAY_CAP, noisyCap: NOISY_CAP, trafficCap: Number.isFinite(TRAFFIC_CAP) ? TRAFFIC_CAP : "none", ...(TRAFFIC_WEIGHT !== 1 ? { trafficWeight: TRAFFIC_WEIGHT } : {}), ...(EXPERT ? { expert: values.expert } : {}), ...(WORDING_REPAIRS.length > 0 ? { wordingUnknowns: WORDING_REPAIRS } : {}), maxFpr, guardRows: values["guard-rows"], policy: values.policy, datasets: (base.model.header.training["datasets"] as string[] | undefined) ?? corpus?.datasets,
  rows: base.model.header.training["rows"] ?? corpus?.rows, hashing: HASHING, window: WINDOW, folds: usedFolds, evalCap: EVAL_CAP,
  selection: Object.fromEntries(Object.entries(selection).map(([f, s]) => [f, { mean: s.mean, pairs: s.pairs }])),
};
const heldOutCal = foldLogits[winner]?.length ? calibrate(foldLogits[winner]!) : undefined;
const final = kept ?? (heldOutCal ? withCalibration(base.model, heldOutCal) : base.model);
if (kept) {
  for (const [name, t] of base.model.tensors) {
    const k = kept.tensors.get(name);
    if (!k || k.length !== t.length || k.some((v, i) => v !== t[i])) throw new Error(`--keep-model: ${target} is not the cached shipped model (tensor ${name} differs)`);
  }
  log(`kept ${target} (id ${id}): same weights as the cached shipped model; its thresholds stay`);
} else {
  const { tensors: _entries, ...finalHeader } = final.header;
  const bytes = encodeModel({ ...finalHeader, id, training }, Object.fromEntries(final.tensors));
  mkdirSync(modelsDir, { recursive: true });
  // Write beside the target and rename: the service never sees a half-written model file.
  writeFileSync(`${target}.tmp`, bytes);
  renameSync(`${target}.tmp`, target);
  log(`wrote ${target} (${(bytes.length / 1e6).toFixed(2)} MB), id ${id}`);
}

/** buildCorpus's split: the texts held out of the shipped model's training for calibration. */
const inShippedCalibration = (norm: string): boolean => inCalibrationSplit(norm, seed, CALIBRATION_SHARE);

const evaluation = {
  id, winner, selection, folds: usedFolds, plannedFolds: folds.filter((d) => present.has(d)), evalCap: EVAL_CAP, previous: previousFigures(values.previous ?? join(modelsDir, "evaluation.json")),
  // Re-evaluating the same model (--keep-model) keeps its card's family comparison unless a new one is given.
  // "none" drops a budgeted comparison that a full-scale one has superseded.
  comparison: values.comparison === "none" ? undefined : values.comparison ? mergeComparisons(values.comparison.split(",")) : sameModelEvaluation()?.comparison,
  fullComparison: values["full-comparison"] ? mergeComparisons(values["full-comparison"].split(",")) : sameModelEvaluation()?.fullComparison,
  confusion: heldOut[winner] ? confusionTable(heldOut[winner]!) : undefined,
  calibrationConfusion: calibrationSplitConfusion(final, evaluated, inShippedCalibration),
  inDomain: inDomain(final, evaluated, inShippedCalibration),
  calibration: base.reports,
  heldOutCalibration: heldOutCal?.reports ?? [],
  thresholds: final.header.thresholds,
  // --keep-model: what this run's held-out guard would have set instead (the card names the differences).
  guardThresholds: kept && heldOutCal ? withCalibration(base.model, heldOutCal).header.thresholds : undefined,
  maxFpr,
  guardRows: values["guard-rows"],
  policy: values.policy,
  // With --reuse, the report keeps the wall-clock time of the run that trained the cached weights.
  seconds: trainingSeconds(),
  heldOut: Object.fromEntries(Object.entries(heldOut).map(([f, rs]) => [f, {
    pooled: summarize(rs),
    anyHarm: anyHarmAuprc(rs),
    perDataset: rs.map((r) => ({ dataset: r.dataset, benign: r.benign, benignFlagged: r.benignFlagged, benignByCategory: r.benignByCategory, slices: r.slices, categories: summarize([r]), anyHarm: anyHarmAuprc([r]), safe: r.safe ?? 0, safeFlagged: r.safeFlagged ?? 0, safeByCategory: r.safeByCategory ?? {} })),
  }])),
  training,
};
writeFileSync(join(modelsDir, "evaluation.json"), `${JSON.stringify(evaluation, null, 1)}\n`);
writeReport(join(modelsDir, "README.md"), evaluation);
log(`wrote ${modelsDir}/evaluation.json and README.md`);

/** Before/after figures: the replaced model's pooled held-out figures and benign false-positive counts. */
function previousFigures(path: string): Evaluation["previous"] {
  if (!existsSync(path)) return undefined;
  const ev = JSON.parse(readFileSync(path, "utf8")) as Evaluation;
  // Re-running the same version keeps comparing against the model it replaced.
  if (ev.id === id) return ev.previous;
  const h = ev.heldOut[ev.winner];
  if (!h) return undefined;
  const benign: Record<string, { benign: number; flagged: number }> = {};
  for (const d of h.perDataset) {
    benign[d.dataset] = { benign: d.benign, flagged: d.benignFlagged };
    for (const [slice, v] of Object.entries(d.slices)) benign[`${d.dataset}/${slice}`] = { benign: v.benign, flagged: v.flagged };
  }
  return { id: ev.id, pooled: h.pooled, benign, selection: Object.fromEntries(Object.entries(ev.selection).map(([f, s]) => [f, { mean: s.mean, pairs: s.pairs }])) };
}

/** The output directory's evaluation.json when it describes this same model (a --keep-model re-evaluation). */
function sameModelEvaluation(): (Evaluation & { seconds?: number }) | undefined {
  const path = join(modelsDir, "evaluation.json");
  if (!kept || !existsSync(path)) return undefined;
  const ev = JSON.parse(readFileSync(path, "utf8")) as Evaluation & { seconds?: number };
  return ev.id === id ? ev : undefined;
}

/**
 * Wall-clock seconds of the run that trained the weights, or undefined when nobody measured it: a
 * --reuse run over a cache without timing.json (filled by parallel --train-folds-only runs) only
 * evaluated, and its own minute is not the training time.
 */
function trainingSeconds(): number | undefined {
  const file = join(cacheDir, "timing.json");
  // Without the cache's timing (another machine's cache), a re-evaluation keeps the card's training time.
  const keptSeconds = existsSync(file) ? undefined : sameModelEvaluation()?.seconds;
  if (keptSeconds !== undefined) return keptSeconds;
  if (values.reuse && existsSync(file)) {
    const t = JSON.parse(readFileSync(file, "utf8")) as { seconds: number; folds?: Record<string, number> };
    for (const [f, sec] of Object.entries(t.folds ?? {})) if (selection[f]) selection[f]!.seconds = sec;
    return t.seconds;
  }
  if (values.reuse) return undefined;
  const seconds = Math.round((Date.now() - started) / 1000);
  writeFileSync(file, JSON.stringify({ seconds, folds: Object.fromEntries(Object.entries(selection).map(([f, x]) => [f, Math.round(x.seconds)])) }));
  return seconds;
}
