import { normalizeForMatching } from "../classifiers/normalize/normalize.js";
import type { Example } from "./datasets/example.js";
import { inCalibrationSplit } from "./corpus.js";
import { createPrng } from "./prng.js";

/**
 * Emoji and hashtags as people add them to any message. Faces, hands, hearts and a few common
 * symbols only: never a person, flag, animal, weapon or disgust emoji, which Hatemoji's authors use
 * in place of a group's name or a threat ("🐒", "🔪", "🤮"), so those keep what its rows teach.
 */
const DECORATIVE_EMOJI = [
  "😂", "🤣", "😭", "❤️", "😍", "🥰", "😊", "🙏", "👍", "😅", "😁", "😆", "😉", "😘", "🙄", "😩", "😤",
  "😡", "😢", "🥺", "😔", "😒", "🤔", "👀", "💀", "🔥", "✨", "💯", "🎉", "🙌", "👏", "😎", "🤷", "🤦",
  "🙂", "🙃", "😬", "😳", "🥲", "💕", "💔", "😱", "🤗", "😴", "☺️", "👌", "💪", "🤞", "😏", "😌",
] as const;

const HASHTAGS = [
  "#mondaymood", "#tbt", "#love", "#news", "#fail", "#truth", "#rant", "#life", "#blessed", "#gaming",
  "#nofilter", "#sports", "#food", "#travel", "#weekend", "#funny", "#music", "#work", "#fyp", "#mood",
] as const;

/** Datasets whose emoji are their content (hate said in emoji): never decorated. */
const EMOJI_AS_CONTENT = new Set(["hatemoji"]);

/** A decorated row must stay one window (480 characters). */
const MAX_LENGTH = 440;

export interface DecorationOptions {
  /** Share of each dataset's training rows (0..1) that get a decoration. */
  share: number;
  seed: number;
  /** buildCorpus's calibration split: calibration rows are left as they are. */
  calibrationShare: number;
}

/**
 * The training rows with a share of them decorated: one to three emoji at the end, the start or
 * both, or hashtags at the end, the labels unchanged. Why: the only emoji-rich source is Hatemoji,
 * where half the rows are hate and 57-86 % of those with "😂", "🙄" or "😡" are, so the network
 * learned "an emoji, so hate, and not self-harm, sexual or violence": "gg 🙄🙄" scored hate 0.80,
 * and a 😭 after "I'm back to hurting myself every night." took self_harm from 0.60 to 0.13.
 * Decorated rows replace their originals (a dataset's row count and weights stay as they were) and
 * are training rows only; the evaluated rows are the datasets' own, undecorated.
 */
export function decorateRows(examples: readonly Example[], options: DecorationOptions): Example[] {
  if (options.share <= 0) return examples.slice();
  const rand = createPrng(options.seed ^ 0x2545f491);
  return examples.map((e) => {
    if (EMOJI_AS_CONTENT.has(e.dataset) || e.text.length > MAX_LENGTH || e.trainingOnly) return e;
    // Draw for every row, so which rows are decorated does not depend on the others' lengths.
    if (rand() >= options.share) return e;
    if (inCalibrationSplit(normalizeForMatching(e.text), options.seed, options.calibrationShare)) return e;
    return { ...e, text: decorate(e.text, rand), trainingOnly: true };
  });
}

/** The text with one decoration, drawn from `rand`. */
export function decorate(text: string, rand: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  if (rand() < 0.25) {
    const tags = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(HASHTAGS));
    return `${text} ${tags.join(" ")}`;
  }
  const first = pick(DECORATIVE_EMOJI);
  let run = first.repeat(1 + Math.floor(rand() * 3));
  if (rand() < 0.3) run += pick(DECORATIVE_EMOJI);
  const gap = rand() < 0.7 ? " " : "";
  const where = rand();
  if (where < 0.65) return `${text}${gap}${run}`;
  if (where < 0.85) return `${run}${gap}${text}`;
  return `${run} ${text} ${pick(DECORATIVE_EMOJI)}`;
}
