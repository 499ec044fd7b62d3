import { CATEGORY_IDS } from "../classifiers/categories.js";
import { normalizeForMatching } from "../classifiers/normalize/normalize.js";
import { featurize, tokenFeaturesOf, tokenize, type HashingSpec } from "../classifiers/model/features.js";
import { windowsOf, type WindowSpec } from "../classifiers/model/windows.js";
import type { Example } from "./datasets/example.js";
import { hashString } from "./prng.js";

/** Featurised training rows (one per window of each de-duplicated example), in flat typed arrays. */
export interface Corpus {
  rows: number;
  /** feats[offsets[r] .. offsets[r + 1]) are row r's distinct buckets. */
  offsets: Uint32Array;
  feats: Uint32Array;
  /** rows x CATEGORY_IDS labels (-1 unknown). */
  labels: Int8Array;
  /** Index into `datasets`. */
  dataset: Uint16Array;
  datasets: string[];
  /** 0 = training rows, 1 = calibration rows (held out for calibration and thresholds). */
  split: Uint8Array;
  /** Per-row weight that keeps large datasets from drowning small ones. */
  weight: Float32Array;
  /** The example each row came from (index into the examples array). */
  example: Uint32Array;
  /** Token sequences, for families that see word order (built when CorpusOptions.sequences). */
  sequences?: Sequences;
}

/**
 * Each row's tokens as ids of distinct words; word u's features (unigram and char n-grams, as the
 * engine's tokenFeaturesOf gives them) are wordFeats[wordOffsets[u] .. wordOffsets[u + 1]).
 */
export interface Sequences {
  offsets: Uint32Array;
  tokens: Uint32Array;
  wordOffsets: Uint32Array;
  wordFeats: Uint32Array;
}

/** Windows of 480 characters hold about 100 tokens; longer runs (no spaces) are cut here. */
const MAX_SEQUENCE = 200;

export interface CorpusOptions {
  hashing: HashingSpec;
  window: WindowSpec;
  seed: number;
  /** Share of rows (by text hash) held out for calibration. */
  calibrationShare: number;
  /** A dataset's rows count as at most this many rows in total. */
  datasetCap: number;
  /** Cap for datasets of everyday benign text only (assistant queries): higher, so common words
   * ("tomorrow", "plan", "kill time") are not learned as harm from a few harm-heavy corpora. */
  everydayCap?: number;
  /** Cap for datasets whose labels are copied from the user to every post (see NOISY). */
  noisyCap?: number;
  /** Cap for expert-labelled real traffic (see REAL_TRAFFIC); absent: the dataset cap. */
  trafficCap?: number;
  /** Weight of each such row after its cap (absent: 1); over 1 counts it several times. */
  trafficWeight?: number;
  /** Extra weight for benign look-alike rows (see isLookalike); 1 = none. */
  lookalikeWeight?: number;
  /** Also keep each row's token sequence (see Sequences). */
  sequences?: boolean;
}

/**
 * Benign contrast sets built to look like harm (HateCheck's counter-speech, negation, reclaimed and
 * homonym slurs, positive identity statements; XSTest safe prompts; CoCoNot's contrast prompts;
 * ToxiGen's neutral identity statements). They are hard negatives: every head is trained on them
 * with extra weight. A fold that holds one of these datasets out drops its rows from training like
 * any other held-out dataset, so its false-positive rate is measured on text the model never saw.
 */
/**
 * Reddit C-SSRS labels are per user, copied to every post: many "self-harm intent" posts are
 * ordinary text ("see you tomorrow"), so the set counts less than a post-labelled one.
 */
const NOISY = new Set(["reddit-cssrs-suicide"]);

/**
 * Expert-labelled real traffic: CAD's 18,000 Reddit posts and comments, labelled in thread context,
 * the only real-traffic abuse labels in the data. The dataset cap (meant for template and prompt
 * sets, whose rows repeat a few patterns) would cut it to a third. Counted in full (`trafficCap`
 * Infinity, the default since `2026-11-k`) it gains in-domain hate AUPRC on CAD's calibration split
 * (0.293 -> 0.337 on `2026-11-i`'s seed) with no more neutral posts flagged (docs/model-history.md,
 * sessions 16 and 23).
 */
const REAL_TRAFFIC = new Set(["cad-reddit-abuse"]);

/** Whether a normalised text is in the calibration split: by its hash, so every copy of a text is on the same side. */
export function inCalibrationSplit(norm: string, seed: number, share: number): boolean {
  return (hashString(norm, seed) % 1000) / 1000 < share;
}

/** Datasets of ordinary, benign assistant queries. */
const EVERYDAY = new Set(["clinc150", "banking77"]);

export function isLookalike(e: Pick<Example, "dataset" | "slice" | "labels">): boolean {
  if (!e.labels.every((v) => v === 0)) return false;
  if (e.dataset === "hatecheck") return e.slice.endsWith("_nh");
  return e.dataset === "xstest" || e.dataset === "toxigen-seeds" || (e.dataset === "coconot" && e.slice === "contrast");
}

/**
 * The examples that become corpus rows, in buildCorpus's order: each text normalised, empty ones
 * skipped, and only the first of each (dataset, normalised text). Families trained outside
 * TypeScript walk the same way (corpus-words.ts), so their rows line up with the corpus's.
 */
export function* distinctTexts(examples: readonly Example[]): Generator<{ index: number; norm: string }> {
  const seen = new Set<string>();
  for (let index = 0; index < examples.length; index++) {
    const e = examples[index]!;
    const norm = normalizeForMatching(e.text);
    if (norm.length === 0) continue;
    const key = `${e.dataset}\u0000${norm}`;
    if (seen.has(key)) continue;
    seen.add(key);
    yield { index, norm };
  }
}

/** `rows` (ascending) cut into runs that are windows of one example: buildCorpus adds an example's windows in a row. */
export function exampleRuns(corpus: Corpus, rows: Uint32Array): Uint32Array[] {
  const runs: Uint32Array[] = [];
  let start = 0;
  for (let i = 1; i <= rows.length; i++) {
    if (i < rows.length && corpus.example[rows[i]!] === corpus.example[rows[start]!]) continue;
    if (i > start) runs.push(rows.slice(start, i));
    start = i;
  }
  return runs;
}

export function buildCorpus(examples: readonly Example[], opts: CorpusOptions): Corpus {
  const datasets = [...new Set(examples.map((e) => e.dataset))].sort();
  const dsIndex = new Map(datasets.map((d, i) => [d, i]));
  const rowFeats: Uint32Array[] = [];
  const rowEx: number[] = [];
  const rowSplit: number[] = [];
  const seqRows: Uint32Array[] = [];
  const wordIds = new Map<string, number>();
  const wordFeatList: Uint32Array[] = [];
  for (const { index: i, norm } of distinctTexts(examples)) {
    // Same text, same split across datasets, so a duplicate cannot leak into calibration.
    const split = inCalibrationSplit(norm, opts.seed, opts.calibrationShare) ? 1 : 0;
    // Long texts train window by window, as they are scored (windows do not overlap here).
    const wins = windowsOf(norm, { size: opts.window.size, stride: opts.window.size });
    for (const w of wins) {
      rowFeats.push(featurize(norm, opts.hashing, w.from, w.to));
      if (opts.sequences) {
        const tokens = tokenize(norm, w.from, w.to).slice(0, MAX_SEQUENCE);
        const tf = tokenFeaturesOf(norm, tokens, opts.hashing);
        seqRows.push(Uint32Array.from(tokens, (tok, t) => {
          const word = norm.slice(tok.start, tok.end);
          let id = wordIds.get(word);
          if (id === undefined) {
            id = wordFeatList.length;
            wordIds.set(word, id);
            wordFeatList.push(tf.feats.slice(tf.from[t]!, tf.to[t]!));
          }
          return id;
        }));
      }
      rowEx.push(i);
      rowSplit.push(split);
    }
  }
  const rows = rowFeats.length;
  const offsets = new Uint32Array(rows + 1);
  let total = 0;
  rowFeats.forEach((f, r) => {
    offsets[r] = total;
    total += f.length;
  });
  offsets[rows] = total;
  const feats = new Uint32Array(total);
  rowFeats.forEach((f, r) => feats.set(f, offsets[r]!));
  const H = CATEGORY_IDS.length;
  const labels = new Int8Array(rows * H);
  const dataset = new Uint16Array(rows);
  const counts = new Array<number>(datasets.length).fill(0);
  rowEx.forEach((ei, r) => {
    const e = examples[ei]!;
    labels.set(e.labels, r * H);
    dataset[r] = dsIndex.get(e.dataset)!;
    counts[dataset[r]!]!++;
  });
  const weight = new Float32Array(rows);
  const boost = opts.lookalikeWeight ?? 1;
  for (let r = 0; r < rows; r++) {
    const name = datasets[dataset[r]!]!;
    const cap = REAL_TRAFFIC.has(name) ? (opts.trafficCap ?? opts.datasetCap)
      : EVERYDAY.has(name) ? (opts.everydayCap ?? opts.datasetCap) : NOISY.has(name) ? (opts.noisyCap ?? opts.datasetCap) : opts.datasetCap;
    const traffic = REAL_TRAFFIC.has(name) ? (opts.trafficWeight ?? 1) : 1;
    weight[r] = Math.min(1, cap / counts[dataset[r]!]!) * traffic * (boost !== 1 && isLookalike(examples[rowEx[r]!]!) ? boost : 1);
  }
  const corpus: Corpus = { rows, offsets, feats, labels, dataset, datasets, split: Uint8Array.from(rowSplit), weight, example: Uint32Array.from(rowEx) };
  if (opts.sequences) corpus.sequences = { ...flatten(seqRows), ...renameWords(flatten(wordFeatList)) };
  return corpus;
}

function flatten(parts: Uint32Array[]): { offsets: Uint32Array; tokens: Uint32Array } {
  const offsets = new Uint32Array(parts.length + 1);
  let n = 0;
  parts.forEach((p, i) => {
    offsets[i] = n;
    n += p.length;
  });
  offsets[parts.length] = n;
  const tokens = new Uint32Array(n);
  parts.forEach((p, i) => tokens.set(p, offsets[i]!));
  return { offsets, tokens };
}

function renameWords(f: { offsets: Uint32Array; tokens: Uint32Array }): { wordOffsets: Uint32Array; wordFeats: Uint32Array } {
  return { wordOffsets: f.offsets, wordFeats: f.tokens };
}
