/**
 * Exports the family comparison's rows for the transformer trained in Python (training/transformer/):
 * the same corpus (buildCorpus: rows, labels, weights, calibration split), the same 12% row subsample
 * (hash per row) and the same held-out datasets as `npm run train -- --compare-only`, as JSONL of the
 * engine's tokens (normalised text, tokenize()). Optionally trains the embedding-bag MLP on the same
 * fold rows and writes its raw logits in the transformer's score format, so both are measured by the
 * same script (transformer-score.ts), model alone, on the same rows.
 *
 *   npx tsx src/training/transformer-export.ts --out /work/cache/transformer [--mlp-baseline]
 *
 * Writes to --out (never the repo): meta.json, pretrain.jsonl (every row of the non-held-out datasets,
 * both splits, no labels), fold-<d>-train.jsonl and fold-<d>-calib.jsonl ({t, y, w}), heldout-<d>.jsonl
 * ({w: tokens per window, y}: each distinct text of dataset d, windows as the engine scores them), and
 * with --mlp-baseline, mlp-<d>-calib.scores.json and mlp-<d>-heldout.scores.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CATEGORY_IDS } from "../classifiers/categories.js";
import { buildCorpus } from "./corpus.js";
import { corpusRowWords, heldOutTexts } from "./corpus-words.js";
import { readAll } from "./datasets/index.js";
import { datasetsRoot } from "./datasets/files.js";
import { baselineScores } from "./baseline-scores.js";
import { DEFAULT_HASHING, DEFAULT_SEED, defaultCorpusOptions, hashRow, learnedHeads, WINDOW } from "./settings.js";

const HASHING = DEFAULT_HASHING;
/** Tokens kept per window: 480-character windows hold about 100. */
const MAX_TOKENS = 128;

const { values } = parseArgs({
  options: {
    seed: { type: "string", default: String(DEFAULT_SEED) },
    subsample: { type: "string", default: "0.12" },
    folds: { type: "string", default: "cad-reddit-abuse,hatemoji" },
    out: { type: "string", default: "/work/cache/transformer" },
    "mlp-baseline": { type: "boolean", default: false },
    epochs: { type: "string", default: "2" },
  },
});
const seed = Number(values.seed);
const SUBSAMPLE = Number(values.subsample);
const folds = values.folds.split(",");
const out = values.out;
mkdirSync(out, { recursive: true });
const heads = learnedHeads();
const H = CATEGORY_IDS.length;
const started = Date.now();
const log = (msg: string): void => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${msg}`);

const examples = readAll(datasetsRoot());
log(`read ${examples.length} rows`);
const corpus = buildCorpus(examples, defaultCorpusOptions(seed));
log(`corpus: ${corpus.rows} rows`);

const rowTokens = corpusRowWords(examples, corpus, WINDOW.size, MAX_TOKENS);

const labelsOf = (r: number): number[] => heads.map((c) => corpus.labels[r * H + c]!);
const heldIdx = folds.map((d) => corpus.datasets.indexOf(d));
function writeJsonl(name: string, rows: Iterable<unknown>): number {
  const lines: string[] = [];
  for (const row of rows) lines.push(JSON.stringify(row));
  writeFileSync(join(out, name), lines.length > 0 ? `${lines.join("\n")}\n` : "");
  return lines.length;
}
function* range(pred: (r: number) => boolean): Generator<number> {
  for (let r = 0; r < corpus.rows; r++) if (pred(r)) yield r;
}

// Pretraining text: every row of the datasets no fold holds out (both splits), so one pretrained
// encoder serves every fold without having read a held-out dataset's text.
const nPre = writeJsonl("pretrain.jsonl", (function* () {
  for (const r of range((r) => !heldIdx.includes(corpus.dataset[r]!))) if (rowTokens[r]!.length > 0) yield { t: rowTokens[r] };
})());
log(`pretrain.jsonl: ${nPre} rows`);

const meta: Record<string, unknown> = {
  seed, subsample: SUBSAMPLE, folds, window: WINDOW, maxTokens: MAX_TOKENS, heads: heads.map((c) => CATEGORY_IDS[c]), datasets: corpus.datasets, rows: corpus.rows, pretrainRows: nPre, fold: {},
};
for (const d of folds) {
  const ex = corpus.datasets.indexOf(d);
  if (ex < 0) throw new Error(`no dataset ${d}`);
  const trainRows = Uint32Array.from(range((r) => corpus.split[r] === 0 && corpus.dataset[r] !== ex && hashRow(r, seed) < SUBSAMPLE));
  const calibRows = Uint32Array.from(range((r) => corpus.split[r] === 1 && corpus.dataset[r] !== ex));
  const row = (r: number): unknown => ({ t: rowTokens[r], y: labelsOf(r), w: corpus.weight[r] });
  const nTrain = writeJsonl(`fold-${d}-train.jsonl`, Array.from(trainRows, row));
  writeJsonl(`fold-${d}-calib.jsonl`, Array.from(calibRows, row));
  // Held-out rows as scoreHeldOut and heldOutLogits take them: distinct texts, overlapping windows.
  const held = heldOutTexts(examples, d, WINDOW, MAX_TOKENS).map((t) => ({ w: t.windows, y: t.labels }));
  writeJsonl(`heldout-${d}.jsonl`, held);
  (meta["fold"] as Record<string, unknown>)[d] = { train: nTrain, calib: calibRows.length, heldout: held.length };
  log(`${d}: ${nTrain} training rows, ${calibRows.length} calibration rows, ${held.length} held-out texts`);
  if (values["mlp-baseline"]) {
    const mlp = baselineScores(corpus, examples, d, trainRows, calibRows, { hashing: HASHING, window: WINDOW, seed, epochs: Number(values.epochs) });
    writeFileSync(join(out, `mlp-${d}-calib.scores.json`), JSON.stringify({ family: "embedding-mlp", logits: mlp.calib }));
    writeFileSync(join(out, `mlp-${d}-heldout.scores.json`), JSON.stringify({ family: "embedding-mlp", logits: mlp.heldOut, seconds: mlp.seconds }));
    log(`${d}: embedding-mlp baseline trained and scored in ${mlp.seconds.toFixed(0)} s`);
  }
}
writeFileSync(join(out, "meta.json"), `${JSON.stringify(meta, null, 1)}\n`);
log(`wrote ${out}`);
