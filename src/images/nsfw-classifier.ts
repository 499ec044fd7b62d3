import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { CategoryVerdict, Verdict } from "../classifiers/classifier.js";
import type { DecodedImage } from "./decoded-image.js";
import type { ImageClassifier } from "./image-classifier.js";
import type { NsfwPool } from "./worker-pool.js";

/** nsfwjs output classes, in the model's output order. */
const NSFW_CLASSES = ["drawing", "hentai", "neutral", "porn", "sexy"] as const;
type NsfwClass = (typeof NSFW_CLASSES)[number];
type NsfwProbabilities = Record<NsfwClass, number>;

/**
 * Weight of "sexy" (suggestive: swimwear, lingerie) in the sexual score. Suggestive alone must not
 * reach the flag threshold, but it adds to explicit classes when the model hesitates between them.
 */
const SEXY_WEIGHT = 0.3;
const SEXUAL_FLAG_THRESHOLD = 0.5;

// nsfwjs does not export its package.json; its entry point sits at dist/cjs/index.js.
const NSFWJS_ROOT = path.resolve(path.dirname(createRequire(import.meta.url).resolve("nsfwjs")), "../..");
const NSFWJS_VERSION = (JSON.parse(readFileSync(path.join(NSFWJS_ROOT, "package.json"), "utf8")) as { version: string }).version;
export const NSFW_MODEL_ID = `nsfwjs-mobilenet_v2@${NSFWJS_VERSION}`;

/**
 * The sexual score of one frame: the probability mass of the explicit classes (porn, hentai) plus
 * a fraction of the suggestive one. nsfwjs judges nothing else, so no other category is reported.
 */
export function sexualVerdict(p: NsfwProbabilities): CategoryVerdict {
  // Six decimals, as text scores are given: a float's tail (0.03290454822126776) is noise, not signal.
  const score = Math.round(Math.min(1, Math.max(0, p.porn + p.hentai + SEXY_WEIGHT * p.sexy)) * 1e6) / 1e6;
  return { score, flagged: score >= SEXUAL_FLAG_THRESHOLD };
}

export function toProbabilities(row: readonly number[]): NsfwProbabilities {
  if (row.length !== NSFW_CLASSES.length || row.some((v) => !Number.isFinite(v))) {
    throw new Error(`nsfwjs returned ${row.length} values; expected ${NSFW_CLASSES.length} finite probabilities`);
  }
  return Object.fromEntries(NSFW_CLASSES.map((name, i) => [name, row[i]!])) as NsfwProbabilities;
}

/** An animation is as bad as its worst sampled frame. */
export function verdictFromFrames(rows: readonly (readonly number[])[]): Verdict {
  if (rows.length === 0) throw new Error("no frames were scored");
  const sexual = rows.map((row) => sexualVerdict(toProbabilities(row))).reduce((a, b) => (b.score > a.score ? b : a));
  return { categories: { sexual }, explanations: {} };
}

export function createNsfwClassifier(pool: NsfwPool): ImageClassifier {
  return {
    id: NSFW_MODEL_ID,
    async classify(image: DecodedImage, signal?: AbortSignal) {
      return verdictFromFrames(await pool.run(image.modelInput, signal));
    },
  };
}
