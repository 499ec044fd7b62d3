import { normalizeForMatching } from "../classifiers/normalize/normalize.js";
import { example, type Example } from "./datasets/example.js";
import { isLookalike, inCalibrationSplit, type Corpus } from "./corpus.js";
import { createPrng } from "./prng.js";

/** The slice of the rows this adds: trained on, never evaluated (they are not a dataset's own rows). */
export const MIXED_SLICE = "mixed-positive";

export interface MixedPositiveOptions {
  /** At most this many short positives of each dataset get a benign companion. */
  perDataset: number;
  seed: number;
  /** Datasets whose texts never serve as companions (those held out in evaluation: no held-out text trains a fold). */
  heldOut: ReadonlySet<string>;
  /** buildCorpus's calibration split: neither part of an added row is a calibration text. */
  calibrationShare: number;
  /** Weight of each added row beside its dataset's (default 1). */
  weight?: number;
  /** Also one pair of two benign texts for each mixed positive, so length and a companion's style teach nothing. */
  benignPairs?: boolean;
  /**
   * The row does not train the companion's own feature rows (Example.frozenCompanion): the network
   * learns to find the harm beside ordinary text without the ordinary words learning harm.
   */
  frozenCompanions?: boolean;
  /**
   * The row trains no feature row at all, only the hidden layer and heads: the network learns to
   * read a diluted harm signal without any word growing louder to beat the dilution.
   */
  frozenAll?: boolean;
  /** Shortest positive that gets a companion (default 1): a one-word positive beside prose teaches the word alone. */
  minPositive?: number;
  /** Draw companions only from these datasets (absent: every dataset not held out). */
  companionDatasets?: ReadonlySet<string>;
}

/** Longest positive that gets a companion, and longest row made: one window (480 characters). */
const MAX_POSITIVE = 240;
const MAX_MIXED = 470;
const MIN_COMPANION = 30;

/**
 * Probe (session 39, off by default: docs/model-history.md): short harmful texts with a benign
 * text beside them, labelled as the harmful one. The embedding bag averages a window's features,
 * so harm said in one sentence of a longer text is diluted by the rest (two neutral sentences
 * around a written harmful sentence took every flag from 48 of 120 flagged ones), and the
 * corpus's positives are mostly short (tweets, prompts, template sentences). Each added row is a
 * dataset's short positive (training split only) and, before or after it, a benign row (positive
 * for nothing, not a look-alike) of a dataset not held out in evaluation; it stays in its
 * positive's dataset, so a fold that holds the dataset out drops it too. It halved the flags lost
 * to such padding but cost pooled hate and violence AUPRC on every seed tried.
 */
export function mixedPositives(examples: readonly Example[], options: MixedPositiveOptions): Example[] {
  const rand = createPrng(options.seed ^ 0x5f3759df);
  const inTraining = (text: string): boolean => !inCalibrationSplit(normalizeForMatching(text), options.seed, options.calibrationShare);
  const companions = examples.filter((e) => !options.heldOut.has(e.dataset) && (options.companionDatasets?.has(e.dataset) ?? true) && e.labels.every((l) => l === 0) && !isLookalike(e)
    && e.text.length >= MIN_COMPANION && e.text.length <= MAX_MIXED - MIN_COMPANION && inTraining(e.text));
  if (companions.length === 0 || options.perDataset <= 0) return [];
  const pick = (): Example => companions[Math.floor(rand() * companions.length)]!;
  /** A companion that fits beside `text` in one row (a few tries), or undefined. */
  const besides = (text: string): Example | undefined => {
    for (let tries = 0; tries < 9; tries++) {
      const c = pick();
      if (text.length + 1 + c.text.length <= MAX_MIXED) return c;
    }
    return undefined;
  };
  const byDataset = new Map<string, Example[]>();
  for (const e of examples) {
    if (!e.labels.some((l) => l === 1) || e.text.length > MAX_POSITIVE || e.text.length < (options.minPositive ?? 1) || !inTraining(e.text)) continue;
    const list = byDataset.get(e.dataset) ?? [];
    list.push(e);
    byDataset.set(e.dataset, list);
  }
  const added = (dataset: string, text: string, labels: Int8Array): Example => ({ ...example(dataset, MIXED_SLICE, text, labels), trainingOnly: true, weight: options.weight ?? 1 });
  const out: Example[] = [];
  for (const [dataset, positives] of [...byDataset].sort((a, b) => a[0].localeCompare(b[0]))) {
    for (const p of sample(positives, options.perDataset, rand)) {
      const companion = besides(p.text);
      if (!companion) continue;
      const row = added(dataset, rand() < 0.5 ? `${companion.text} ${p.text}` : `${p.text} ${companion.text}`, p.labels);
      // Every bucket of the row is "the companion's" when nothing may learn (boundary n-grams too).
      const frozen = options.frozenAll ? { benign: row.text, harmful: "" } : options.frozenCompanions ? { benign: companion.text, harmful: p.text } : undefined;
      out.push(frozen ? { ...row, frozenCompanion: frozen } : row);
      const other = options.benignPairs ? besides(companion.text) : undefined;
      if (other) out.push(added(companion.dataset, `${companion.text} ${other.text}`, companion.labels.map((l, i) => (l === 0 && other.labels[i] === 0 ? 0 : -1))));
    }
  }
  return out;
}

/**
 * `rows` less the windows of mixed positives: what a member past train.ts's --mixed-members trains
 * on, so a word the mixed rows made louder is heard by the other members only.
 */
export function withoutMixed(corpus: Corpus, examples: readonly Example[], rows: Uint32Array): Uint32Array {
  return rows.filter((r) => examples[corpus.example[r]!]!.slice !== MIXED_SLICE);
}

/** Up to `n` items, a seeded partial shuffle. */
function sample<T>(items: readonly T[], n: number, rand: () => number): T[] {
  const copy = items.slice();
  const k = Math.min(n, copy.length);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rand() * (copy.length - i));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, k);
}
