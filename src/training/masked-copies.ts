import { tokenize } from "../classifiers/model/features.js";
import type { Example } from "./datasets/example.js";
import { hashString } from "./prng.js";

/**
 * Masked copies of training texts: "I will k*ll you", "you are a c*nt", "f**k off". People mask the
 * word that carries the harm, and the model, which hashes words and character n-grams, cannot
 * know that "k*l" is "kil" unless it trains on masked rows: the shared data hold about 900 masked
 * tokens, too few to learn them (docs/model-history.md, sessions 49 and 50).
 *
 * Which word to mask is learned from the data, not listed: one of the text's words that are
 * over-represented in rows positive for some category against rows negative for all, drawn in
 * proportion to that (`maskSalience`). Negative rows that hold such a word ("kill time") get masked copies too, so a
 * mask is not itself a sign of harm. A copy keeps its text's labels, weight and split.
 */

/** A word needs this many positive texts, and this ratio of rates, to be masked. */
const MIN_POSITIVE_TEXTS = 10;
const MIN_RATE_RATIO = 2;
/** The most frequent words of all texts ("are", "just", "people") carry no harm of their own and are never masked. */
const COMMON_WORDS = 300;
/** Letters a masker replaces first. */
const VOWELS = new Set(["a", "e", "i", "o", "u", "y"]);

/** Salience (log rate ratio, harmful over harmless texts) of each word that qualifies for masking. */
export function maskSalience(texts: readonly { norm: string; example: Example }[], commonWords = COMMON_WORDS): Map<string, number> {
  const pos = new Map<string, number>();
  const neg = new Map<string, number>();
  let positives = 0;
  let negatives = 0;
  for (const { norm, example } of texts) {
    const harmful = example.labels.some((v) => v === 1);
    const harmless = !harmful && example.labels.some((v) => v === 0);
    if (!harmful && !harmless) continue;
    if (harmful) positives++;
    else negatives++;
    const counts = harmful ? pos : neg;
    for (const word of new Set(wordsOf(norm))) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const salience = new Map<string, number>();
  const common = new Set([...new Set([...pos.keys(), ...neg.keys()])].sort((a, b) => total(b) - total(a)).slice(0, commonWords));
  function total(word: string): number {
    return (pos.get(word) ?? 0) + (neg.get(word) ?? 0);
  }
  for (const [word, p] of pos) {
    if (common.has(word)) continue;
    if (p < MIN_POSITIVE_TEXTS) continue;
    const ratio = (p / positives) / (((neg.get(word) ?? 0) + 0.5) / negatives);
    if (ratio >= MIN_RATE_RATIO) salience.set(word, Math.log(ratio));
  }
  return salience;
}

/** Lower-case words of three letters or more (the ones a masker masks). */
function wordsOf(norm: string): string[] {
  return tokenize(norm).map((t) => norm.slice(t.start, t.end)).filter((w) => w.length >= 3 && /^[a-z]+$/.test(w));
}

/**
 * The text with one word masked wherever it occurs (and that masked form), or undefined when it
 * has no word of three letters.
 * The mask's shape is drawn from the text's hash: one vowel ("k*l"), every vowel ("f*g*t"), the
 * inside of the word ("f*k"), or all but its first letter ("f*"). Runs of '*' are one, as the
 * normaliser reads them.
 */
export function maskedCopy(norm: string, salience: ReadonlyMap<string, number>, seed: number): { text: string; mask: string } | undefined {
  const words = [...new Set(wordsOf(norm))];
  if (words.length === 0) return undefined;
  const candidates = words.filter((w) => salience.has(w));
  const h = hashString(norm, seed ^ 0x5bd1e995);
  const draw = (h >>> 8) / (1 << 24);
  let word: string;
  if (candidates.length > 0 && (h & 0x10) === 0) {
    // A salient word, drawn in proportion to its salience: the most telling is the likeliest.
    const total = candidates.reduce((sum, w) => sum + salience.get(w)!, 0);
    let pick = draw * total;
    word = candidates.find((w) => (pick -= salience.get(w)!) < 0) ?? candidates[candidates.length - 1]!;
  } else {
    // Any word, in every other copy and in texts without a salient one: a mask alone is no sign of harm.
    word = words[Math.floor(draw * words.length)]!;
  }
  const masked = maskWord(word, h % 10);
  return { text: norm.replace(new RegExp(`\\b${word}\\b`, "g"), masked), mask: masked };
}

/** `word` masked in shape `draw` (0-9): 0-4 one vowel, 5-6 every vowel, 7-8 the inside, 9 all but the first letter. */
export function maskWord(word: string, draw: number): string {
  const letters = [...word];
  if (draw >= 9) return `${letters[0]}*`;
  if (draw >= 7) return `${letters[0]}*${letters[letters.length - 1]}`;
  const inner = letters.map((c, i) => i > 0 && VOWELS.has(c));
  if (!inner.some(Boolean)) inner[1] = true;
  let first = true;
  const out = letters.map((c, i) => {
    if (!inner[i] || (draw < 5 && !first)) return c;
    first = false;
    return "*";
  });
  return out.join("").replace(/\*+/g, "*");
}
