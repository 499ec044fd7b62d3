import { codePointLength, codePointSlicer } from "../base/code-points.js";
import type { CategoryId } from "../classifiers/categories.js";
import type { EvidenceSpan, NotEvaluated, Verdict } from "../classifiers/classifier.js";
import { higherPerCategory } from "../classifiers/higher-reading.js";

/** Text items are joined with a blank line for the combined layer, so sentences do not run together. */
export const COMBINED_SEPARATOR = "\n\n";
const SEPARATOR_CODE_POINTS = 2;

/**
 * The longest pair of neighbouring items read on its own, in UTF-16 units: the text model's window
 * (the shipped model file's `window.size`, which src/training/settings.ts WINDOW writes;
 * test/moderation/combined-reading.test.ts holds it to both), so such a pair is read with
 * nothing else beside it. The whole joined text is read in windows of this size too, so a short
 * pair shares its window with its neighbours: a benign item beside it diluted a threat split
 * across the two ("I will find you", "and hurt you", "Hello everyone, …": found by an audit).
 */
export const PAIR_READING_MAX_LENGTH = 480;

/** What the combined layer needs of one text item: its text, and what the embedded model left unread in it alone. */
export interface TextItemReading {
  index: number;
  text: string;
  notEvaluated?: NotEvaluated | undefined;
}

/** One item's place in the combined text: code-point offsets, end exclusive. */
export interface PlacedItem {
  index: number;
  start: number;
  end: number;
  /** The embedded model read some of it alone: it is not wholly in a language the model does not cover. */
  read: boolean;
}

/** The text the combined layer judges, and where each of its items sits in it. */
export interface CombinedText {
  text: string;
  items: PlacedItem[];
}

/**
 * The combined layer's text: the items with text to read, in order, joined; undefined when fewer
 * than two remain. An item with nothing to read ("   ", "!!!") adds nothing: beside it, the layer
 * only judged the other item again (and under a guard model brought back a flag the guard had
 * cleared on it: found by an audit).
 */
export function combinedTextOf(items: readonly TextItemReading[]): CombinedText | undefined {
  const kept = items.filter((item) => item.notEvaluated?.reason !== "no_text");
  if (kept.length < 2) return undefined;
  const placed: PlacedItem[] = [];
  let at = 0;
  for (const item of kept) {
    const end = at + codePointLength(item.text);
    placed.push({ index: item.index, start: at, end, read: item.notEvaluated?.reason !== "unsupported_language" });
    at = end + SEPARATOR_CODE_POINTS;
  }
  return { text: kept.map((item) => item.text).join(COMBINED_SEPARATOR), items: placed };
}

type Classify = (text: string) => Verdict | Promise<Verdict>;

/**
 * The embedded model's reading of the combined text: the whole text, and each pair of neighbouring
 * items it read (skipping one wholly in another language) that fits one window
 * (PAIR_READING_MAX_LENGTH), with per category the reading that flags it, else the higher score.
 * So harm split across two messages is not diluted by a third, nor hidden by an item in another
 * language, and it costs at most one short pass per pair. `text` may stand in for the combined
 * text: a copy with the same code points in place (a policy's text without its allowed terms).
 */
export async function readCombined(combined: CombinedText, classify: Classify, text = combined.text): Promise<Verdict> {
  const pairs = pairsOf(combined, text);
  const [whole, ...byPair] = await Promise.all([classify(text), ...pairs.map((pair) => classify(pair.text))]);
  if (pairs.length === 0) return whole!;
  return higherReading(whole!, byPair.map((verdict, k) => inCombinedText(verdict!, pairs[k]!)));
}

interface Pair {
  text: string;
  first: PlacedItem;
  second: PlacedItem;
}

function pairsOf(combined: CombinedText, text: string): Pair[] {
  // Two items: their pair is the whole text.
  if (combined.items.length < 3) return [];
  const read = combined.items.filter((item) => item.read);
  const slice = codePointSlicer(text);
  const pairs: Pair[] = [];
  for (let k = 1; k < read.length; k++) {
    const first = read[k - 1]!;
    const second = read[k]!;
    const pairText = sideBySide(first, second) ? slice(first.start, second.end) : slice(first.start, first.end) + COMBINED_SEPARATOR + slice(second.start, second.end);
    if (readAlone(pairText.length)) pairs.push({ text: pairText, first, second });
  }
  return pairs;
}

/** A pair of neighbouring items (of three or more: two items' pair is the whole text) is read alone when it fits one window. */
const readAlone = (pairLength: number) => pairLength <= PAIR_READING_MAX_LENGTH;

/**
 * The lengths (UTF-16 units) of the pairs readCombined reads alone, as far as the texts alone say:
 * as if each has text to read and the model reads it (which only its reading tells). For the
 * compute pool's estimate of a job's work (compute-pool.ts costOf).
 */
export function pairReadingLengths(texts: readonly string[]): number[] {
  const lengths: number[] = [];
  for (let k = 1; texts.length > 2 && k < texts.length; k++) {
    const length = texts[k - 1]!.length + COMBINED_SEPARATOR.length + texts[k]!.length;
    if (readAlone(length)) lengths.push(length);
  }
  return lengths;
}

const sideBySide = (first: PlacedItem, second: PlacedItem) => second.start === first.end + SEPARATOR_CODE_POINTS;

/** A pair's verdict with its spans moved to offsets in the combined text. */
function inCombinedText(verdict: Verdict, pair: Pair): Verdict {
  const secondFrom = pair.first.end - pair.first.start + SEPARATOR_CODE_POINTS;
  const moved = (span: EvidenceSpan, by: number): EvidenceSpan => ({ ...span, start: span.start + by, end: span.end + by });
  const place = (span: EvidenceSpan): EvidenceSpan[] => {
    if (sideBySide(pair.first, pair.second) || span.end <= secondFrom - SEPARATOR_CODE_POINTS) return [moved(span, pair.first.start)];
    if (span.start >= secondFrom) return [moved(span, pair.second.start - secondFrom)];
    // Across the separator of items with another between them: no stretch of the combined text.
    return [];
  };
  const explanations: Verdict["explanations"] = {};
  for (const [category, spans] of Object.entries(verdict.explanations) as [CategoryId, EvidenceSpan[]][]) explanations[category] = spans.flatMap(place);
  return { ...verdict, explanations };
}

/**
 * The whole text's reading and its pairs', per category the higher (higherPerCategory; the whole
 * text on a tie). What the whole text left unread stands; where it read none of it (another
 * language) and a pair did, the layer was read in part.
 */
function higherReading(whole: Verdict, pairs: Verdict[]): Verdict {
  const { categories, explanations } = higherPerCategory([whole, ...pairs]);
  const unread = whole.notEvaluated;
  const readInPart = unread?.reason === "unsupported_language" && Object.keys(categories).length > 0;
  const notEvaluated: NotEvaluated | undefined = readInPart ? { reason: "partly_unsupported_language", language: unread.language } : unread;
  return { categories, explanations, ...(whole.language !== undefined ? { language: whole.language } : {}), ...(notEvaluated ? { notEvaluated } : {}) };
}
