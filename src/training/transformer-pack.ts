/**
 * Packs the whole corpus for the transformer family's GPU run (training/transformer/gpu_run.py): every
 * row, all nine held-out datasets of the card, as the engine's tokens turned into vocabulary ids, in
 * flat binary arrays small enough to travel to a device machine (the JSONL of transformer-export.ts
 * is for the 12% CPU comparison and would be gigabytes here). The rows, labels, weights and
 * calibration split are buildCorpus's, with train.ts's settings, so the fold rows are train.ts's.
 *
 *   npx tsx src/training/transformer-pack.ts --pack .gpu/pack --labels /work/cache/tfull [--mlp-baseline] [--conv-baseline]
 *
 * --pack (travels): meta.json, vocab.json, rows.{tokens.u16, offsets.u32, dataset.u8, split.u8,
 * labels.i8, weight.f32} and per held-out dataset d: heldout-d.{tokens.u16, offsets.u32, owner.u32}
 * (each distinct text's overlapping windows, as the engine scores them; owner = the text's index).
 * --labels (stays here, read by transformer-score.ts): meta.json, fold-d-calib.jsonl ({y, w} per
 * calibration row of fold d, in row order), heldout-d.jsonl ({y} per distinct text) and, with
 * --mlp-baseline, the embedding-bag MLP's scores on the same rows (mlp-d-*.scores.json), with
 * --conv-baseline the conv family's (conv-d-*.scores.json).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CATEGORY_IDS } from "../classifiers/categories.js";
import { buildCorpus } from "./corpus.js";
import { corpusRowWords, heldOutTexts } from "./corpus-words.js";
import { readAll } from "./datasets/index.js";
import { datasetsRoot } from "./datasets/files.js";
import { memberSeed } from "./ensemble.js";
import { baselineScores } from "./baseline-scores.js";
import { readTeacherTargets } from "./train-mlp.js";
import { hashString } from "./prng.js";
import { DEFAULT_FOLDS, DEFAULT_HASHING, DEFAULT_SEED, defaultCorpusOptions, learnedHeads, WINDOW } from "./settings.js";

const HASHING = DEFAULT_HASHING;
const FOLDS = DEFAULT_FOLDS;
/** Words kept per window after [CLS] (a 480-character window holds about 100). */
const MAX_WORDS = 127;
// Ids: 0 pad, 1 [CLS], 2 [MASK]; then HASH_BUCKETS shared ids for rare words (FNV-1a, as
// training/transformer/common.py); then the vocabulary's words by frequency.
const SPECIAL = 3;
const HASH_BUCKETS = 2048;

const { values } = parseArgs({
  options: {
    seed: { type: "string", default: String(DEFAULT_SEED) },
    pack: { type: "string", default: ".gpu/pack" },
    labels: { type: "string", default: "/work/cache/tfull" },
    "vocab-words": { type: "string", default: "24000" },
    "min-count": { type: "string", default: "3" },
    "mlp-baseline": { type: "boolean", default: false },
    // The conv family (train-conv.ts, one network) on the same rows, scored as tag "conv".
    "conv-baseline": { type: "boolean", default: false },
    // Train the baselines as ensemble member K (ensemble.ts memberSeed; tags "mlp-mK", "conv-mK"),
    // so that "mlp+mlp-m1" (two members, as shipped) can be set against "mlp+conv".
    member: { type: "string", default: "0" },
    // With --mlp-baseline: train the MLP on the GPU transformer's soft targets too (teacher-<fold>.u8
    // in this folder, unpack_scores.py), scored as tag "mlp-teacher-w<weight>".
    teacher: { type: "string" },
    "teacher-weight": { type: "string", default: "0.5" },
    folds: { type: "string" },
    epochs: { type: "string", default: "2" },
  },
});
const seed = Number(values.seed);
const member = Number(values.member);
const trainingSeed = memberSeed(seed, member);
const memberTag = member > 0 ? `-m${member}` : "";
const started = Date.now();
const log = (msg: string): void => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${msg}`);
for (const dir of [values.pack, values.labels]) mkdirSync(dir, { recursive: true });
const heads = learnedHeads();
const H = CATEGORY_IDS.length;
const K = heads.length;

const examples = readAll(datasetsRoot());
// Token sequences (for the conv family) add to the corpus; rows and features stay the same.
const corpus = buildCorpus(examples, { ...defaultCorpusOptions(seed), sequences: values["conv-baseline"] });
log(`${examples.length} examples, ${corpus.rows} corpus rows`);
const foldIdx = FOLDS.map((d) => {
  const i = corpus.datasets.indexOf(d);
  if (i < 0) throw new Error(`no dataset ${d}`);
  return i;
});

const rowWords = corpusRowWords(examples, corpus, WINDOW.size, MAX_WORDS);

// Vocabulary from the text no fold holds out, so no fold model has a word of its own held-out set.
const counts = new Map<string, number>();
for (let r = 0; r < corpus.rows; r++) {
  if (foldIdx.includes(corpus.dataset[r]!)) continue;
  for (const w of rowWords[r]!) counts.set(w, (counts.get(w) ?? 0) + 1);
}
const words = [...counts].filter(([, c]) => c >= Number(values["min-count"]))
  .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  .slice(0, Number(values["vocab-words"])).map(([w]) => w);
const index = new Map(words.map((w, i) => [w, SPECIAL + HASH_BUCKETS + i]));
const vocabSize = SPECIAL + HASH_BUCKETS + words.length;
if (vocabSize > 0xffff) throw new Error("vocabulary too large for 16-bit ids");
const idOf = (w: string): number => index.get(w) ?? SPECIAL + (hashString(w) % HASH_BUCKETS);

/** Flat ids and offsets of token lists. */
function packLists(lists: readonly string[][]): { tokens: Uint16Array; offsets: Uint32Array } {
  const offsets = new Uint32Array(lists.length + 1);
  lists.forEach((l, i) => { offsets[i + 1] = offsets[i]! + l.length; });
  const tokens = new Uint16Array(offsets[lists.length]!);
  lists.forEach((l, i) => l.forEach((w, j) => { tokens[offsets[i]! + j] = idOf(w); }));
  return { tokens, offsets };
}
const bytes = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const put = (name: string, a: ArrayBufferView): void => writeFileSync(join(values.pack, name), bytes(a));

const rows = packLists(rowWords);
put("rows.tokens.u16", rows.tokens);
put("rows.offsets.u32", rows.offsets);
put("rows.dataset.u8", Uint8Array.from(corpus.dataset));
put("rows.split.u8", corpus.split);
put("rows.labels.i8", Int8Array.from({ length: corpus.rows * K }, (_, i) => corpus.labels[Math.floor(i / K) * H + heads[i % K]!]!));
put("rows.weight.f32", corpus.weight);
writeFileSync(join(values.pack, "vocab.json"), JSON.stringify({ special: SPECIAL, hashBuckets: HASH_BUCKETS, words }));
log(`rows: ${rows.tokens.length} tokens; vocabulary ${vocabSize} ids (${words.length} words)`);

const jsonl = (name: string, items: readonly unknown[]): void => writeFileSync(join(values.labels, name), items.map((x) => JSON.stringify(x)).join("\n") + (items.length > 0 ? "\n" : ""));
const labelsOf = (r: number): number[] => heads.map((c) => corpus.labels[r * H + c]!);
const foldMeta: Record<string, unknown> = {};
const runFolds = values.folds?.split(",") ?? FOLDS;
for (const d of runFolds) {
  const ex = corpus.datasets.indexOf(d);
  // Held-out texts as heldOutLogits takes them; a text with no window still gets one (empty)
  // window, so gpu_run.py scores every text.
  const texts = heldOutTexts(examples, d, WINDOW, MAX_WORDS);
  const windows: string[][] = [];
  const owner: number[] = [];
  texts.forEach((t, i) => {
    for (const w of t.windows.length > 0 ? t.windows : [[]]) {
      windows.push(w);
      owner.push(i);
    }
  });
  const held = texts.map((t) => ({ y: t.labels }));
  const packed = packLists(windows);
  put(`heldout-${d}.tokens.u16`, packed.tokens);
  put(`heldout-${d}.offsets.u32`, packed.offsets);
  put(`heldout-${d}.owner.u32`, Uint32Array.from(owner));
  const calibRows = Uint32Array.from({ length: corpus.rows }, (_, r) => r).filter((r) => corpus.split[r] === 1 && corpus.dataset[r] !== ex);
  const trainRows = Uint32Array.from({ length: corpus.rows }, (_, r) => r).filter((r) => corpus.split[r] === 0 && corpus.dataset[r] !== ex);
  jsonl(`fold-${d}-calib.jsonl`, Array.from(calibRows, (r) => ({ y: labelsOf(r), w: corpus.weight[r] })));
  jsonl(`heldout-${d}.jsonl`, held);
  foldMeta[d] = { train: trainRows.length, calib: calibRows.length, heldout: held.length, windows: windows.length };
  log(`${d}: ${trainRows.length} training rows, ${calibRows.length} calibration rows, ${held.length} held-out texts`);
  if (values["mlp-baseline"]) {
    const teacher = values.teacher ? readTeacherTargets(values.teacher, d, Number(values["teacher-weight"])) : undefined;
    const mlp = baselineScores(corpus, examples, d, trainRows, calibRows, { hashing: HASHING, window: WINDOW, seed: trainingSeed, epochs: Number(values.epochs), ...(teacher ? { teacher } : {}) });
    const tag = `${teacher ? `mlp-teacher-w${teacher.weight}` : "mlp"}${memberTag}`;
    writeFileSync(join(values.labels, `${tag}-${d}-calib.scores.json`), JSON.stringify({ family: "embedding-mlp", logits: mlp.calib }));
    writeFileSync(join(values.labels, `${tag}-${d}-heldout.scores.json`), JSON.stringify({ family: "embedding-mlp", logits: mlp.heldOut, seconds: mlp.seconds }));
    log(`${d}: embedding-mlp baseline trained and scored in ${mlp.seconds.toFixed(0)} s`);
  }
  if (values["conv-baseline"]) {
    const conv = baselineScores(corpus, examples, d, trainRows, calibRows, { hashing: HASHING, window: WINDOW, seed: trainingSeed, epochs: Number(values.epochs), family: "conv" });
    writeFileSync(join(values.labels, `conv${memberTag}-${d}-calib.scores.json`), JSON.stringify({ family: "conv", logits: conv.calib }));
    writeFileSync(join(values.labels, `conv${memberTag}-${d}-heldout.scores.json`), JSON.stringify({ family: "conv", logits: conv.heldOut, seconds: conv.seconds }));
    log(`${d}: conv baseline trained and scored in ${conv.seconds.toFixed(0)} s`);
  }
}
const meta = {
  seed, subsample: 1, folds: FOLDS, window: WINDOW, maxWords: MAX_WORDS, heads: heads.map((c) => CATEGORY_IDS[c]),
  datasets: corpus.datasets, foldDatasets: foldIdx, rows: corpus.rows, vocabSize, special: SPECIAL, hashBuckets: HASH_BUCKETS, fold: foldMeta,
};
for (const dir of [values.pack, values.labels]) writeFileSync(join(dir, "meta.json"), `${JSON.stringify(meta, null, 1)}\n`);
log(`wrote ${values.pack} and ${values.labels}`);
