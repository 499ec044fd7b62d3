import { eld } from "eld/medium";
import { MAX_FOLD_LENGTH, normalizeForMatching } from "../normalize/normalize.js";
import { eldTopLanguage } from "./eld-top-language.js";
import { foreignTailStart, functionWordsOf, holdsForeignWords } from "./function-words.js";

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
const SEGMENT_CHARS = 20;
/** Text without sentence ends is read in pieces of this many characters. */
const PIECE_CHARS = 60;

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

/**
 * A piece of text read as one, and where short sentences were joined to a longer one: `anchor`
 * is that sentence's range in `text`. Short sentences lean on their neighbour's language, but must
 * not decide it: "Je vais te tuer ce soir. See you all then." read whole is English.
 */
interface Piece {
  text: string;
  anchor?: readonly [number, number];
}

/**
 * Sentences of `text`, each at least SEGMENT_CHARS long but the last, and runs of another script
 * apart. Every one is read: a sample of them (24, evenly spaced, until session 32) let a foreign
 * passage between two samples of a long text go unseen. A shorter sentence joins the next, unless
 * its function words are a language outside `covered`: then it stands alone ("Thanks, see you
 * tomorrow. Tu es une salope." read as English when joined), and what it interrupted goes on.
 */
function segmentsOf(text: string, covered: ReadonlySet<string>): Piece[] {
  const out: Piece[] = [];
  // Short sentences waiting for more text: in a covered language or undecided, and foreign ones.
  let pending = "";
  let foreign = "";
  let start = 0;
  const end = /[.!?\u3002\uFF01\uFF1F\n]+\s*/g;
  for (let m = end.exec(text); m; m = end.exec(text)) {
    const sentence = text.slice(start, m.index + m[0].length);
    start = m.index + m[0].length;
    if (sentence.length < SEGMENT_CHARS && functionWordsOf(sentence, covered).uncovered) {
      foreign += sentence;
      if (foreign.length >= SEGMENT_CHARS) {
        out.push({ text: foreign });
        foreign = "";
      }
      continue;
    }
    const joined = pending + sentence;
    if (joined.length >= SEGMENT_CHARS) {
      out.push(pending !== "" && sentence.length >= SEGMENT_CHARS ? { text: joined, anchor: [pending.length, joined.length] } : { text: joined });
      pending = "";
    } else pending = joined;
  }
  // What follows the last cut: its own segment if long enough (or foreign), else the end of the one before.
  let rest = text.slice(start);
  if (rest !== "" && rest.length < SEGMENT_CHARS && functionWordsOf(rest, covered).uncovered) {
    foreign += rest;
    rest = "";
  }
  if (foreign !== "") out.push({ text: foreign });
  const joined = pending + rest;
  if (joined !== "") {
    const last = out.at(-1);
    // A last sentence with no full stop after a short one ("I will find you. Je vais te tuer") is
    // that short one's anchor, as one with a stop is.
    if (rest.length >= SEGMENT_CHARS) out.push(pending !== "" ? { text: joined, anchor: [pending.length, joined.length] } : { text: joined });
    else if (joined.length >= SEGMENT_CHARS || !last) out.push({ text: joined });
    else out[out.length - 1] = { text: last.text + joined, anchor: last.anchor ?? [0, last.text.length] };
  }
  // Runs of another script apart, and a text without sentence ends in fixed-size pieces; a piece
  // so cut keeps no anchor.
  const pieces = out.flatMap((segment): Piece[] => {
    const parts = byScript(segment.text).flatMap((s) => (s.length <= PIECE_CHARS * 3 ? [s] : fixedPieces(s)));
    return parts.length === 1 && parts[0] === segment.text ? [segment] : parts.map((part) => ({ text: part }));
  });
  return atMost(MAX_PIECES, pieces);
}

/**
 * `text` in pieces of about PIECE_CHARS, each cut after a space where one falls in its second half:
 * a word cut in two reads as another language's n-grams ("pid stupid stupid ..." as Slovak, so
 * "stupid " 40 times was reported as partly not evaluated; found by a fuzzing audit).
 */
function fixedPieces(text: string): string[] {
  const pieces: string[] = [];
  let from = 0;
  while (text.length - from > PIECE_CHARS) {
    const space = text.lastIndexOf(" ", from + PIECE_CHARS - 1);
    const to = space >= from + PIECE_CHARS / 2 ? space + 1 : from + PIECE_CHARS;
    pieces.push(text.slice(from, to));
    from = to;
  }
  pieces.push(text.slice(from));
  return pieces;
}

/**
 * At most this many pieces are read: more are joined, neighbours with neighbours, into about this
 * many of even length, so every part of the text is still read, more coarsely. A plain text of
 * 10,000 characters is about 120 sentences, read one by one; without a bound, one of alternating
 * scripts ("我喜欢 ok yes " over and over) was 1,600 pieces, about 50 ms of reading.
 */
const MAX_PIECES = 160;

function atMost(max: number, pieces: Piece[]): Piece[] {
  if (pieces.length <= max) return pieces;
  const target = pieces.reduce((n, p) => n + p.text.length, 0) / max;
  const out: Piece[] = [];
  let current = "";
  for (const piece of pieces) {
    current += piece.text;
    if (current.length >= target) {
      out.push({ text: current });
      current = "";
    }
  }
  if (current !== "") out.push({ text: current });
  return out;
}

/**
 * Latin and the scripts whose look-alikes stand in for Latin letters (confusables.ts folds them:
 * "уоu іdіоt" is English to the model): a letter of any of them, and a letter of none of them.
 * Armenian, Lisu and Cherokee too: "ꓗꓲꓡꓡ ꓬꓳꓴ" was answered as an unsupported language, not read.
 */
const LOOKALIKE_SCRIPTS = String.raw`\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}\p{Script=Lisu}\p{Script=Cherokee}`;
const LATIN_OR_LOOKALIKE = new RegExp(`[${LOOKALIKE_SCRIPTS}]`, "gu");
const NO_LOOKALIKE_LETTER = new RegExp(`[^\\P{L}${LOOKALIKE_SCRIPTS}]`, "gu");

/**
 * A run of words in scripts other than Latin (a word: such letters with their combining marks,
 * which in Devanagari, Thai or Khmer belong to the script itself), with nothing but spaces,
 * punctuation, digits or symbols between them. English never writes such words, so a run that holds
 * one of three or more letters is read on its own, however short, instead of joining an English
 * sentence that outweighs it; so is one with two words of two letters in a script with no Latin
 * look-alike (Korean writes most words in two syllables: "오늘 밤 너를 죽일 거야" after "and then"
 * was read with it, as English). Single letters ("let α, β, γ be angles") stay where they are.
 */
const OTHER_SCRIPT_RUN = /(?:[^\P{L}\p{Script=Latin}]\p{M}*)+(?:[^\p{L}\p{M}]+(?:[^\P{L}\p{Script=Latin}]\p{M}*)+)*/gu;
const OTHER_SCRIPT_WORD = /(?:[^\P{L}\p{Script=Latin}]\p{M}*){3}/u;
const NO_LOOKALIKE_WORD = new RegExp(`(?:${NO_LOOKALIKE_LETTER.source}\\p{M}*){2,}`, "gu");

/** Whether a run of another script is read on its own (see OTHER_SCRIPT_RUN). */
function standsAlone(run: string): boolean {
  return OTHER_SCRIPT_WORD.test(run) || count(NO_LOOKALIKE_WORD, run) >= 2;
}

/** `segment` cut where runs of another script start and end (ASCII text: as it is). */
function byScript(segment: string): string[] {
  if (ASCII_ONLY.test(segment)) return [segment];
  const out: string[] = [];
  let start = 0;
  OTHER_SCRIPT_RUN.lastIndex = 0;
  for (let m = OTHER_SCRIPT_RUN.exec(segment); m; m = OTHER_SCRIPT_RUN.exec(segment)) {
    if (!standsAlone(m[0])) continue;
    if (m.index > start) out.push(segment.slice(start, m.index));
    out.push(m[0]);
    start = m.index + m[0].length;
  }
  if (start < segment.length) out.push(segment.slice(start));
  return out.filter((piece) => piece.trim() !== "");
}

/** ELD's pick for a text: its own detect() (the reference the tests compare with), or the same computed faster (the default). */
export type LanguagePicker = (text: string) => string;
export const eldPick: LanguagePicker = (text) => eld.detect(text).language;

type Segment = { kind: "covered" | "uncovered" | "unknown"; language: string; letters: number };

/**
 * A piece as read: whole, unless its anchor sentence alone is in an uncovered language by its
 * function words too; then the short sentences joined to it are read on their own, so they cannot
 * carry it into English. (N-grams alone are not enough: "Liverpool vs Real Madrid: Di Maria, Del
 * Piero, Van der Sar." reads as Italian by them, and its "Shoot them all." is what says English.)
 */
function readPiece(piece: Piece, covered: ReadonlySet<string>, pick: LanguagePicker): Segment[] {
  const read = readAnchored(piece, covered, pick);
  // Read as covered (or unsure) whole: a clause in another language may still hide in it.
  if (read.length === 1 && read[0]!.kind !== "uncovered") {
    const clauses = foreignClauses(piece.text, covered);
    if (clauses) return clauses.map((clause) => readSegment(clause, covered, pick));
  }
  return read;
}

function readAnchored(piece: Piece, covered: ReadonlySet<string>, pick: LanguagePicker): Segment[] {
  if (piece.anchor) {
    const [from, to] = piece.anchor;
    const sentence = piece.text.slice(from, to);
    // The function words first: they are cheaper than the n-grams, and most anchors are English.
    const anchor = functionWordsOf(sentence, covered).uncovered ? readSegment(sentence, covered, pick) : undefined;
    if (anchor?.kind === "uncovered") {
      const others = [piece.text.slice(0, from), piece.text.slice(to)].filter((t) => t.trim() !== "");
      return [anchor, ...others.map((t) => readSegment(t, covered, pick))];
    }
  }
  return [readSegment(piece.text, covered, pick)];
}

/** A clause ends at a comma, semicolon or colon before white space. */
const CLAUSE_END = /(?<=[,;:])\s+/;
/** A clause shorter than this (in characters) is never read apart. */
const MIN_CLAUSE_CHARS = 12;

/**
 * `text` cut around the clauses whose function words are an uncovered language's, or undefined
 * when none is. Sentences are cut at their ends only, and a foreign clause after an English one
 * and a comma was read with it, as English ("Nice to see you, te voy a matar esta noche cabrón";
 * "You know what, ich bringe dich heute Nacht um"; found by an audit). Each foreign clause is read
 * on its own; the clauses between them, joined, as one.
 */
function foreignClauses(text: string, covered: ReadonlySet<string>): string[] | undefined {
  if (!holdsForeignWords(text, covered, 2)) return undefined;
  const parts = text.split(CLAUSE_END);
  const foreign = parts.map((part) => part.length >= MIN_CLAUSE_CHARS && functionWordsOf(part, covered).uncovered);
  if (!foreign.includes(true)) return foreignTail(text, covered);
  const out: string[] = [];
  let run = "";
  parts.forEach((part, i) => {
    if (!foreign[i]) {
      run += `${part} `;
      return;
    }
    if (run.trim() !== "") out.push(run);
    out.push(part);
    run = "";
  });
  if (run.trim() !== "") out.push(run);
  return out;
}

/**
 * `text` cut before the first word from which the rest reads, by its function words, as an uncovered
 * language while what comes before does not: a foreign clause run on from English words with no
 * comma between ("I swear te voy a matar si vuelves a llamar"), or undefined when there is none.
 * Only words of uncovered languages alone can start one, so English text is cut only where two of
 * them, outnumbering its English function words, follow.
 */
function foreignTail(text: string, covered: ReadonlySet<string>): string[] | undefined {
  const start = foreignTailStart(text, covered, MIN_CLAUSE_CHARS);
  if (start === undefined) return undefined;
  const head = text.slice(0, start);
  return head.trim() === "" || functionWordsOf(head, covered).uncovered ? undefined : [head, text.slice(start)];
}

function readSegment(segment: string, covered: ReadonlySet<string>, pick: LanguagePicker): Segment {
  const first = readText(segment, covered, pick);
  if (first.kind !== "uncovered") return first;
  // Look-alike letters of another script ("уоu аrе" in Cyrillic) must not hide English from the
  // model, which folds them: a text whose folded form reads as a covered language is that language.
  // Where folding took letters out of other scripts or accents away, its pick itself must be
  // covered: ordinary French or Spanish without its accents reads as nearly English. ASCII text
  // (leetspeak, stretched words) may still have English close behind, as any text may.
  // Letters of a script with no Latin look-alike fold to no English letter: read with them, the
  // folded text was English by artefacts ("honestly bro 오늘 밤 너를 죽일 거야", its Hangul folded
  // into jamo, read as English whole; found in session 51).
  if (count(NO_LOOKALIKE_LETTER, segment) >= MIN_OTHER_SCRIPT_LETTERS) return first;
  const folded = readText(normalizeForMatching(segment), covered, pick, { closeBehind: ASCII_ONLY.test(segment) });
  return folded.kind === "covered" ? { ...folded, letters: first.letters } : first;
}

function readText(segment: string, covered: ReadonlySet<string>, pick: LanguagePicker, options = { closeBehind: true }): Segment {
  // NOT_LANGUAGE matches only from an @, #, & or a link's start: without one there is nothing to replace.
  const text = MAY_HOLD_NOT_LANGUAGE.test(segment) ? segment.replace(NOT_LANGUAGE, " ") : segment;
  const letters = countLetters(text);
  if (letters === 0) return { kind: "unknown", language: UNDETERMINED, letters };
  // ELD's pick, computed faster (eld-top-language.ts); most text is in a covered language and needs no more.
  const top = pick(text);
  // A script the detector has no table for (Tibetan, Khmer, Burmese...) is no covered language either.
  if (!top) return otherScript(text, letters) || noLatinLookalikes(text, letters, covered) ? { kind: "uncovered", language: UNDETERMINED, letters } : { kind: "unknown", language: UNDETERMINED, letters };
  if (covered.has(top)) return { kind: "covered", language: top, letters };
  const result = eld.detect(text);
  const scores = result.getScores() as Record<string, number>;
  const topScore = scores[top] ?? 0;
  let best = "";
  let bestScore = 0;
  for (const c of covered) if ((scores[c] ?? 0) > bestScore) [best, bestScore] = [c, scores[c]!];
  const words = functionWordsOf(text, covered);
  // A covered language close behind: read it as that one (short slang English, names), unless
  // the text's function words are another language's ("je", "te", "mais": function-words.ts).
  if (options.closeBehind && bestScore >= UNCOVERED_MARGIN * topScore && !words.uncovered) return { kind: "covered", language: best, letters };
  const minLetters = otherScript(text, letters) ? MIN_OTHER_SCRIPT_LETTERS : MIN_LETTERS;
  // The n-grams unsure, but two function words of one uncovered language outnumbering the covered
  // ones: Hindi in Latin letters ("mujhe apni zindagi khatam karni hai"), which ELD has no table
  // for, was read as undetermined and scored as English (found by an audit, session 51).
  if (!result.isReliable() && letters >= minLetters && words.uncovered && words.language) return { kind: "uncovered", language: words.language, letters };
  if (!result.isReliable() || letters < minLetters) {
    return noLatinLookalikes(text, letters, covered) ? { kind: "uncovered", language: UNDETERMINED, letters } : { kind: "unknown", language: UNDETERMINED, letters };
  }
  // Short French read as Croatian or Romanian by its n-grams ("Je vais te tuer"): where its
  // function words name one uncovered language, that is the one reported.
  return { kind: "uncovered", language: words.uncovered && words.language ? words.language : top, letters };
}

/**
 * Whether every letter is in a script with no Latin look-alike (Han, Kana, Hangul, Arabic, Hebrew,
 * Devanagari, Thai...). English is never written so, whatever the detector makes of it: "死ね",
 * "去死吧", "قتل" were too short for it to be sure, read as undetermined and scored as if English
 * (found by an audit). A short Cyrillic or Greek word may be look-alike English, and stays unknown.
 */
function noLatinLookalikes(text: string, letters: number, covered: ReadonlySet<string>): boolean {
  return letters > 0 && !ASCII_ONLY.test(text) && coversLatinScriptOnly(covered) && count(LATIN_OR_LOOKALIKE, text) === 0;
}

/** Languages written in Latin script: a model covering only these reads no other script. */
const LATIN_SCRIPT_LANGUAGES = new Set(["en", "fr", "es", "de", "it", "pt", "nl", "ro", "pl", "sv", "da", "no", "nb", "nn", "fi", "is", "tr", "id", "ms", "ca", "cs", "sk", "sl", "hr", "hu", "et", "lv", "lt", "vi", "tl", "sw"]);
const latinOnly = new WeakMap<ReadonlySet<string>, boolean>();

function coversLatinScriptOnly(covered: ReadonlySet<string>): boolean {
  let known = latinOnly.get(covered);
  if (known === undefined) latinOnly.set(covered, (known = [...covered].every((language) => LATIN_SCRIPT_LANGUAGES.has(language))));
  return known;
}

/** Whether most of the text's letters (at least MIN_OTHER_SCRIPT_LETTERS) are in a script other than Latin. */
function otherScript(text: string, letters: number): boolean {
  return letters >= MIN_OTHER_SCRIPT_LETTERS && count(LATIN, text) * 2 <= letters;
}

/**
 * A character whose compatibility form is longer than this many code points stays itself, as in
 * the model's normaliser: "\ufdfa" is 18 letters of Arabic, and ten items of 10,000 of them (and
 * their combined text) took 1.7-2.4 s to read, 17-30 times prose.
 */
const MAX_COMPATIBILITY_LENGTH = MAX_FOLD_LENGTH;

/**
 * `text` in NFKC, but with characters that expand past MAX_COMPATIBILITY_LENGTH kept as they are.
 * Only a text that grows to more than twice its length is read character by character (such
 * characters are rare); one that grows less costs at most twice its length to read.
 */
function compatibilityForms(text: string): string {
  const whole = text.normalize("NFKC");
  if (whole.length <= text.length * 2) return whole;
  let out = "";
  let run = "";
  for (const ch of text) {
    if (!expandsPastLimit(ch)) {
      run += ch;
      continue;
    }
    out += run.normalize("NFKC") + ch;
    run = "";
  }
  return out + run.normalize("NFKC");
}

const expands = new Map<string, boolean>();
function expandsPastLimit(ch: string): boolean {
  if (ch.charCodeAt(0) < 0x80) return false;
  let known = expands.get(ch);
  if (known === undefined) {
    if (expands.size >= 65_536) expands.clear(); // astral characters too could fill it without end
    known = [...ch.normalize("NFKC")].length > MAX_COMPATIBILITY_LENGTH;
    expands.set(ch, known);
  }
  return known;
}

/** The language of `text`, and how much of it is in a language outside `covered` (BCP-47 codes). */
export function readLanguage(text: string, covered: ReadonlySet<string>, picker: LanguagePicker = eldTopLanguage): LanguageReading {
  const byLanguage = new Map<string, { letters: number; uncovered: boolean }>();
  let total = 0;
  let uncoveredSoFar = 0;
  // Once half the text's letters are read as uncovered the text is not evaluated whatever follows,
  // so a long text in another language is not read to its end. Counted at the first uncovered
  // piece only: most text has none and needs no second pass over its letters.
  let half: number | undefined;
  // Links, mentions and hashtags are no language, and a sentence end inside a link ("https://es.
  // wikipedia.org/wiki/La_casa_de_papel") would leave its tail to be read as words: gone first.
  if (MAY_HOLD_NOT_LANGUAGE.test(text)) text = text.replace(NOT_LANGUAGE, " ");
  // Full-width and other compatibility forms of Latin letters are the letters ("ｙｏｕ ｓｔｕｐｉｄ
  // ｉｄｉｏｔ" read as Japanese, so only the model's flags were kept), as the model reads them.
  if (!ASCII_ONLY.test(text)) text = compatibilityForms(text);
  // Pieces are read one at a time, so the reading can stop at half.
  reading: for (const piece of segmentsOf(text, covered)) {
    for (const s of readPiece(piece, covered, picker)) {
      total += s.letters;
      if (s.kind === "unknown") continue;
      const entry = byLanguage.get(s.language) ?? { letters: 0, uncovered: s.kind === "uncovered" };
      entry.letters += s.letters;
      byLanguage.set(s.language, entry);
      if (s.kind === "uncovered" && (uncoveredSoFar += s.letters) >= (half ??= countLetters(text) / 2)) break reading;
    }
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
