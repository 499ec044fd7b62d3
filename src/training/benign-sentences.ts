import { normalizeForMatching } from "../classifiers/normalize/normalize.js";
import { inCalibrationSplit } from "./corpus.js";
import type { Example } from "./datasets/example.js";
import { createPrng, hashString, shuffleInPlace } from "./prng.js";

/** The slice of the rows this adds: trained on, never evaluated (they are not a dataset's own rows). */
export const BENIGN_SENTENCE_SLICE = "benign-sentence";

export interface BenignSentenceOptions {
  /** At most this many sentences per dataset, drawn at random (seeded). */
  perDataset: number;
  seed: number;
  /** buildCorpus's calibration split: no sentence of a calibration text trains. */
  calibrationShare: number;
  /** Weight of each added row beside its dataset's. */
  weight: number;
}

/** A sentence ends at ., ! or ? followed by white space. */
const SENTENCE_END = /(?<=[.!?])\s+/;
const MIN_SENTENCE = 25;
const MAX_SENTENCE = 240;
const MIN_WORDS = 4;

/**
 * Probe (session 47, off by default): the sentences of rows no source calls harmful, each as a
 * text of its own, with the row's negatives. A word the corpus ties to a category ("blood",
 * "cutting myself") is mostly met in short positives with nothing else in them, and in benign text
 * only deep inside a long row, whose window dilutes it; a short benign sentence holding it is rare
 * ("Which veins do nurses use to draw blood?" flags beside frozen companions: docs/model-history.md,
 * sessions 46 and 47). Cutting benign rows into their sentences gives such sentences from the data,
 * none hand-written. Only a row's negatives are kept (a category its source did not judge stays
 * unknown); rows of more than one sentence only; sentences stay in their row's dataset, so a fold
 * holds them out with it, and do not count toward its cap.
 */
export function benignSentences(examples: readonly Example[], options: BenignSentenceOptions): Example[] {
  const byDataset = new Map<string, Map<string, Int8Array>>();
  for (const e of examples) {
    if (e.trainingOnly || !e.labels.some((l) => l === 0) || e.labels.some((l) => l === 1)) continue;
    if (inCalibrationSplit(normalizeForMatching(e.text), options.seed, options.calibrationShare)) continue;
    const sentences = e.text.split(SENTENCE_END);
    if (sentences.length < 2) continue;
    let seen = byDataset.get(e.dataset);
    if (!seen) byDataset.set(e.dataset, (seen = new Map()));
    for (const raw of sentences) {
      const sentence = raw.trim();
      if (sentence.length < MIN_SENTENCE || sentence.length > MAX_SENTENCE || sentence.split(/\s+/).length < MIN_WORDS) continue;
      if (!seen.has(sentence)) seen.set(sentence, e.labels);
    }
  }
  const out: Example[] = [];
  for (const [dataset, sentences] of [...byDataset].sort(([a], [b]) => a.localeCompare(b))) {
    const sorted = [...sentences].sort(([a], [b]) => a.localeCompare(b));
    // A shuffle of their order, then the first perDataset.
    const order = Uint32Array.from(sorted.keys());
    shuffleInPlace(order, createPrng(options.seed ^ hashString(dataset)));
    for (const i of order.subarray(0, options.perDataset)) {
      const [text, labels] = sorted[i]!;
      out.push({ text, dataset, slice: BENIGN_SENTENCE_SLICE, labels: Int8Array.from(labels), trainingOnly: true, uncounted: true, weight: options.weight });
    }
  }
  return out;
}
