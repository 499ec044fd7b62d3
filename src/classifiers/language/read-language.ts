import { eld } from "eld/medium";
import { normalizeForMatching } from "../normalize/normalize.js";
import { eldTopLanguage } from "./eld-top-language.js";

/**
 * Language identification, offline: ELD (the `eld` package, n-gram tables shipped in the package,
 * 60 languages, ISO 639-1 codes, which are BCP-47 primary language subtags). A text is read in
 * segments of a few sentences, so mixed text shows which share of it is in which language.
 *
 * Short and slang English is often read as a neighbour (Dutch, Tagalog, Catalan) with English a
 * close second; calling such a text "not evaluated" would let English abuse through unjudged. So a
 * segment counts as uncovered only when the detector is sure, has enough letters to go on and
 * scores every covered language well below its pick (UNCOVERED_MARGIN); measured on the English
 * training sets (models/languages.md).
 */

/** "und": undetermined (BCP-47), for text whose language cannot be told (too short, no letters). */
export const UNDETERMINED = "und";
/**
 * A segment in Latin script needs this many letters before its language is trusted over the covered
 * ones; one mostly in another script (Cyrillic, Arabic, CJK, Hangul: never English) needs only
 * MIN_OTHER_SCRIPT_LETTERS.
 */
const MIN_LETTERS = 10;
const MIN_OTHER_SCRIPT_LETTERS = 3;
/** Every covered language must score under this share of the detected one's score. */
const UNCOVERED_MARGIN = 0.7;
/**
 * Segments are cut at sentence ends once this long: a sentence in another language after a short
 * English one ("Thanks, see you tomorrow. Je vais te tuer ce soir") is read on its own, and a
 * sentence shorter than this joins the next, so a greeting alone is not misread.
 */
const SEGMENT_CHARS = 30;
/** Text without sentence ends is read in pieces of this many characters. */
const PIECE_CHARS = 60;
/** At most this many segments are read, evenly spaced: detection cost stays bounded on long text. */
const MAX_SEGMENTS = 24;

export interface LanguageReading {
  /** The main language, a BCP-47 code; UNDETERMINED when none could be told. */
  language: string;
  /** The strongest uncovered language found, and the share of the letters read that are in any uncovered language. */
  uncovered?: { language: string; share: number };
}

const LETTER = /\p{L}/gu;
const LATIN = /\p{Script=Latin}/gu;
// Mentions, hashtags, links and HTML entities are no language: ELD read "@user hi" by the handle.
const NOT_LANGUAGE = /https?:\/\/\S+|www\.\S+|[@#][\p{L}\p{N}_]+|&[a-z]+;/giu;

// Cheap tests that let plain ASCII text (most requests) skip the Unicode-property regexes, which
// cost about 3 µs per 90-character text (40 µs is the whole reading, ELD's n-gram scoring the rest).
const MAY_HOLD_NOT_LANGUAGE = /[@#&]|https?:\/\/|www\./i;
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** Letters (\p{L}) in `text`; for ASCII text these are exactly A-Z and a-z. */
function countLetters(text: string): number {
  if (!ASCII_ONLY.test(text)) return count(LETTER, text);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const lower = text.charCodeAt(i) | 0x20;
    if (lower >= 0x61 && lower <= 0x7a) n++;
  }
  return n;
}

function count(pattern: RegExp, text: string): number {
  pattern.lastIndex = 0;
  let n = 0;
  while (pattern.exec(text)) n++;
  return n;
}

/** Sentences of `text`, each at least SEGMENT_CHARS long but the last, at most MAX_SEGMENTS of them evenly spaced. */
function segmentsOf(text: string): string[] {
  if (text.length < SEGMENT_CHARS * 2) return [text];
  const out: string[] = [];
  let start = 0;
  const end = /[.!?\u3002\uFF01\uFF1F\n]+\s*/g;
  for (let m = end.exec(text); m; m = end.exec(text)) {
    if (m.index + m[0].length - start >= SEGMENT_CHARS) {
      out.push(text.slice(start, m.index + m[0].length));
      start = m.index + m[0].length;
    }
  }
  // What follows the last cut: its own segment if long enough, else the end of the one before.
  if (start < text.length) {
    if (text.length - start >= SEGMENT_CHARS || out.length === 0) out.push(text.slice(start));
    else out[out.length - 1] += text.slice(start);
  }
  // A text without sentence ends: fixed-size pieces.
  const pieces = out.flatMap((s) => (s.length <= PIECE_CHARS * 3 ? [s] : Array.from({ length: Math.ceil(s.length / PIECE_CHARS) }, (_, i) => s.slice(i * PIECE_CHARS, (i + 1) * PIECE_CHARS))));
  if (pieces.length <= MAX_SEGMENTS) return pieces;
  return Array.from({ length: MAX_SEGMENTS }, (_, i) => pieces[Math.floor((i * (pieces.length - 1)) / (MAX_SEGMENTS - 1))]!);
}

/** ELD's pick for a text: its own detect() (the reference the tests compare with), or the same computed faster (the default). */
export type LanguagePicker = (text: string) => string;
export const eldPick: LanguagePicker = (text) => eld.detect(text).language;

type Segment = { kind: "covered" | "uncovered" | "unknown"; language: string; letters: number };

function readSegment(segment: string, covered: ReadonlySet<string>, pick: LanguagePicker): Segment {
  const first = readText(segment, covered, pick);
  if (first.kind !== "uncovered") return first;
  // Look-alike letters of another script ("уоu аrе" in Cyrillic) must not hide English from the
  // model, which folds them: a text whose folded form reads as a covered language is that language.
  const folded = readText(normalizeForMatching(segment), covered, pick);
  return folded.kind === "covered" ? { ...folded, letters: first.letters } : first;
}

function readText(segment: string, covered: ReadonlySet<string>, pick: LanguagePicker): Segment {
  // NOT_LANGUAGE matches only from an @, #, & or a link's start: without one there is nothing to replace.
  const text = MAY_HOLD_NOT_LANGUAGE.test(segment) ? segment.replace(NOT_LANGUAGE, " ") : segment;
  const letters = countLetters(text);
  if (letters === 0) return { kind: "unknown", language: UNDETERMINED, letters };
  // ELD's pick, computed faster (eld-top-language.ts); most text is in a covered language and needs no more.
  const top = pick(text);
  if (!top) return { kind: "unknown", language: UNDETERMINED, letters };
  if (covered.has(top)) return { kind: "covered", language: top, letters };
  const result = eld.detect(text);
  const scores = result.getScores() as Record<string, number>;
  const topScore = scores[top] ?? 0;
  let best = "";
  let bestScore = 0;
  for (const c of covered) if ((scores[c] ?? 0) > bestScore) [best, bestScore] = [c, scores[c]!];
  // A covered language close behind: read it as that one (short slang English, names).
  if (bestScore >= UNCOVERED_MARGIN * topScore) return { kind: "covered", language: best, letters };
  const latin = count(LATIN, text);
  const minLetters = latin * 2 > letters ? MIN_LETTERS : MIN_OTHER_SCRIPT_LETTERS;
  if (!result.isReliable() || letters < minLetters) return { kind: "unknown", language: UNDETERMINED, letters };
  return { kind: "uncovered", language: top, letters };
}

/** The language of `text`, and how much of it is in a language outside `covered` (BCP-47 codes). */
export function readLanguage(text: string, covered: ReadonlySet<string>, picker: LanguagePicker = eldTopLanguage): LanguageReading {
  const byLanguage = new Map<string, { letters: number; uncovered: boolean }>();
  let total = 0;
  for (const segment of segmentsOf(text)) {
    const s = readSegment(segment, covered, picker);
    total += s.letters;
    if (s.kind === "unknown") continue;
    const entry = byLanguage.get(s.language) ?? { letters: 0, uncovered: s.kind === "uncovered" };
    entry.letters += s.letters;
    byLanguage.set(s.language, entry);
  }
  let main = UNDETERMINED;
  let mainLetters = 0;
  let strongest = "";
  let strongestLetters = 0;
  let uncoveredLetters = 0;
  for (const [language, { letters, uncovered }] of byLanguage) {
    if (letters > mainLetters) [main, mainLetters] = [language, letters];
    if (!uncovered) continue;
    uncoveredLetters += letters;
    if (letters > strongestLetters) [strongest, strongestLetters] = [language, letters];
  }
  return uncoveredLetters > 0 ? { language: main, uncovered: { language: strongest, share: uncoveredLetters / total } } : { language: main };
}
