import { DirectionalControls, endsParagraph, isDirectionalControl } from "./bidi-controls.js";
import { newInt32Array } from "../model/typed-slab.js";
import { foldConfusable } from "./confusables.js";
import { blankHtmlTags } from "./html-markup.js";
import { mayStartMultiCharLeet, undoMultiCharLeet } from "./multi-char-leet.js";
import { isEmphasisMark, isPictograph, moveUnit, push, separatePictographs, stripPairedEmphasis, type Units } from "./word-breakers.js";

/**
 * Obfuscation-resistant normalisation, shared by training and inference so both see the same text.
 *
 * Output keeps a map back to the input's code-point offsets, so evidence found in the
 * normalised text can be reported as spans of what the caller sent.
 */
export interface NormalizedText {
  /** Lower-case, de-obfuscated text (one JS string, code points mostly ASCII). */
  text: string;
  /** For each UTF-16 unit of `text`: the input code-point offset it came from. */
  start: Int32Array;
  /** For each UTF-16 unit of `text`: the input code-point offset just after its source. */
  end: Int32Array;
}

// Zero-width and other invisible format characters used to break up words: every format
// character and default-ignorable code point (Unicode's own list, so that tag characters
// U+E0000.., U+FFF9.. or U+1D173.. split no word either), and the Arabic tatweel, which only
// stretches a word ("كـلب" is "كلب"). The blank letters below are ignorable too, but read as spaces.
const INVISIBLE = /[\p{Cf}\p{DI}\u0640]/u;
// Blank-looking letters and symbols (Hangul fillers, the blank Braille pattern) put between words
// in place of a space: read as one. Dropped, they glued the words together ("iwantokilmyself").
const BLANK = /[\u115f\u1160\u2800\u3164\uffa0]/u;
const COMBINING = /\p{M}/u;
const LETTER = /\p{L}/u;

// Leetspeak digits/symbols, only rewritten inside a token that also holds letters ("h4te", not "2024").
// "¡" and "†" are punctuation, so step 1 would make them spaces ("k¡ll" read "k ll"); they are
// kept for this step and stand for letters only between letters ("¡Hola!" is Spanish).
const LEET: Record<string, string> = {
  "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g",
  "@": "a", $: "s", "!": "i", "|": "i", "€": "e", "£": "l", "+": "t", "¡": "i", "†": "t",
  "§": "s", "¢": "c", "¥": "y", "°": "o",
};

// Separators that obfuscators put between single letters ("k i l l", "k.i.l.l", "k-i-l-l").
const SPACER = new Set([" ", ".", "-", "_", "*", "~", "/", "·"]);
// Separators that are also leetspeak or usual between words ("k+i+l+l", "k|i|l|l", "k,i,l,l"):
// their runs are joined before leetspeak is undone, which read "k+i+l+l" as "ktitltl".
const SYMBOL_SPACER = new Set(["+", "|", ","]);

/*
 * Normalisation runs on every request, so the steps work on code points in typed arrays rather than
 * on one-character strings: each unit is one code point of output and the input code-point offset
 * it came from (its source ends one code point later). The tables below are the string tables
 * above, keyed by code point.
 */
const NONE = -1;
const SPACE = 32;
const APOSTROPHE = 39;
const cp = (ch: string): number => ch.codePointAt(0)!;
/** The symbols (not digits) leetspeak writes for letters: policy terms count them as letters (doubled-letters.ts). */
export const LEET_SYMBOLS: string = Object.keys(LEET).filter((k) => !/[0-9]/.test(k)).join("");
const LEET_BY_CP = new Map<number, number>(Object.entries(LEET).map(([k, v]) => [cp(k), cp(v)]));
const LEET_ASCII = Int32Array.from({ length: 128 }, (_, c) => LEET_BY_CP.get(c) ?? NONE);
const SPACER_CPS = new Set<number>([...SPACER].map(cp));
const SYMBOL_SPACER_CPS = new Set<number>([...SYMBOL_SPACER].map(cp));
const BANG = cp("!"), BAR = cp("|"), PLUS = cp("+"), DOLLAR = cp("$");
/** Symbols that stand for a letter only between two letters ("sh!t", "k¡ll"; "C++", "¡Hola"). */
const BETWEEN_LETTERS_ONLY = new Set([BANG, BAR, PLUS, cp("¡"), cp("†")]);
/** Punctuation kept for undoLeet (foldNonAscii): where it stands for no letter it is a space, as other punctuation. */
const LEET_PUNCTUATION = new Set([cp("¡"), cp("†"), cp("§")]);
/**
 * Symbols that are letters only in a word of three or more letters and such symbols with no digit:
 * "¥°µ" is "you", but "25°C", "50¢" and "°F" are measures.
 */
const WORD_ONLY = new Set([cp("§"), cp("¢"), cp("¥"), cp("°")]);

/**
 * Growable parallel arrays of units (word-breakers.ts). One scratch set is reused, as normalisation
 * is synchronous; it keeps the size of the longest text seen (requests are capped at 10,000 code
 * points). The spare set takes a step's output when it inserts units.
 */
let scratch: Units = { cps: new Int32Array(256), at: new Int32Array(256), to: new Int32Array(256), length: 0 };
let spare: Units = { cps: new Int32Array(256), at: new Int32Array(256), to: new Int32Array(256), length: 0 };

/** An ASCII control character that is not whitespace (NUL, backspace, escape, DEL...): dropped, as an invisible is. */
const DROPPED = -2;
/** Lower-case ASCII, with ASCII whitespace as a plain space and other control characters DROPPED ("k\u0000ill" is "kill"). */
const LOWER_ASCII = Int32Array.from({ length: 128 }, (_, c) => (c >= 65 && c <= 90 ? c + 32 : isSpaceCode(c) ? SPACE : c < 32 || c === 127 ? DROPPED : c));

/** What step 1 saw, so that the steps after it that most text needs not run are skipped. */
const HAS_LEET = 1, HAS_PICTOGRAPH = 2, HAS_EMPHASIS = 4, HAS_MULTI_LEET = 8, HAS_SYMBOL_SPACER = 16;

/**
 * Step 1: per code point, fold compatibility forms, diacritics, look-alikes and case; drop invisibles;
 * decode HTML character references and URL-encoded letters. Returns HAS_* flags.
 */
function foldCodePoints(input: string, u: Units, invisibleAsSpace: boolean): number {
  u.length = 0;
  let seen = 0;
  let at = 0;
  // First unit of the text a right-to-left override forces backwards, -1 outside one: see readAsDisplayed.
  let overrideFrom = -1;
  // Made at the first directional control (most text has none).
  let bidi: DirectionalControls | undefined;
  // Whether "+" between letters is a space (formEncoded), asked at the first such "+".
  let plusIsSpace: boolean | undefined;
  // Whether every printable "%XX" is its character (urlEncoded), asked at the first other than a letter's.
  let wholeUrlEncoded: boolean | undefined;
  for (let i = 0; i < input.length; i++, at++) {
    const code = input.charCodeAt(i);
    if (code < 128) {
      if (bidi && endsParagraph(code)) {
        bidi.apply(code);
        if (overrideFrom >= 0) overrideFrom = readAsDisplayed(u, overrideFrom);
      }
      if (code === AMPERSAND || code === PERCENT) {
        let escape = escapedCharacter(input, i);
        if (!escape && code === PERCENT && percentByte(input, i) !== NONE && (wholeUrlEncoded ??= urlEncoded(input))) escape = urlEscape(input, i);
        if (escape) {
          // The character it stands for, from the whole escape (an explanation quoting it quotes
          // the escape); the escape is ASCII, so its UTF-16 length is its length in code points.
          for (const out of escape.point < 128 ? [LOWER_ASCII[escape.point]!] : foldedNonAscii(escape.point)) {
            if (out === DROPPED) continue;
            push(u, out, at, at + escape.length);
            seen |= flagsOf(out);
          }
          i += escape.length - 1;
          at += escape.length - 1;
          continue;
        }
      }
      if (code === PLUS && isAsciiLetter(input.charCodeAt(i - 1)) && isAsciiLetter(input.charCodeAt(i + 1)) && (plusIsSpace ??= formEncoded(input))) {
        push(u, SPACE, at);
        continue;
      }
      const folded = LOWER_ASCII[code]!;
      if (folded === DROPPED) continue;
      push(u, folded, at);
      seen |= ASCII_FLAGS[folded]!;
      continue;
    }
    const point = input.codePointAt(i) ?? code;
    if (point > 0xffff) i++;
    if (isDirectionalControl(point) || (bidi && endsParagraph(point))) {
      bidi ??= new DirectionalControls();
      const backwards = bidi.forcedRightToLeft;
      bidi.apply(point);
      if (backwards && !bidi.forcedRightToLeft) overrideFrom = readAsDisplayed(u, overrideFrom);
      else if (!backwards && bidi.forcedRightToLeft) overrideFrom = u.length;
    }
    const outs = foldedNonAscii(point);
    for (const out of outs) {
      push(u, out, at);
      seen |= flagsOf(out);
    }
    if (invisibleAsSpace && outs.length === 0 && (ZERO_WIDTH_SPACERS.test(String.fromCodePoint(point)) || joinsLatinWords(input, i, point))) push(u, SPACE, at);
    // A combining mark dropped after a letter (a Devanagari vowel sign, an accent typed apart)
    // belongs to it: a span ending at that letter ends after its marks ("कमीने", not "कमीन").
    if (outs.length === 0 && u.length > 0 && u.to[u.length - 1] === at && COMBINING.test(String.fromCodePoint(point))) u.to[u.length - 1] = at + 1;
  }
  if (overrideFrom >= 0) readAsDisplayed(u, overrideFrom);
  return seen;
}

/**
 * A text sent form-encoded ("I+will+kill+you"): no space, and "+" between letters. Read as
 * written it was one word ("itwiltkiltyou"); "C++" and "x+y" in a sentence stay as they are.
 */
function formEncoded(input: string): boolean {
  return !input.includes(" ");
}

/** An escaped or plain ASCII letter, then "%20" or "+", then another. */
const ENCODED_SPACE = /(?:[a-z]|%(?:[46][1-9a-f]|[57][0-9a]))(?:%20|\+)(?:[a-z]|%(?:[46][1-9a-f]|[57][0-9a]))/i;

/**
 * A text sent URL- or form-encoded as a whole: no space, and an encoded one between letters
 * ("I%27m%20going%2C"). Its punctuation and line breaks are read too: left as "%2E", a full stop
 * after "rights" was a token the model leant on ("Gay people deserve equal rights%2E" flagged hate).
 */
function urlEncoded(input: string): boolean {
  return formEncoded(input) && ENCODED_SPACE.test(input);
}

/** In a URL-encoded text: the printable ASCII character or white space a "%XX" at `i` encodes. */
function urlEscape(input: string, i: number): { point: number; length: number } | undefined {
  const point = percentByte(input, i);
  return (point >= 32 && point < 127) || point === 9 || point === 10 || point === 13 ? { point, length: 3 } : undefined;
}

/** HAS_LEET / HAS_EMPHASIS of each ASCII unit after folding. */
const ASCII_FLAGS = Int32Array.from(
  { length: 128 },
  (_, c) => (LEET_ASCII[c] !== NONE ? HAS_LEET : 0) | (isEmphasisMark(c) ? HAS_EMPHASIS : 0) | (mayStartMultiCharLeet(c) ? HAS_MULTI_LEET : 0) | (SYMBOL_SPACER_CPS.has(c) ? HAS_SYMBOL_SPACER : 0),
);

function flagsOf(point: number): number {
  if (point >= 0 && point < 128) return ASCII_FLAGS[point]!;
  return (leetOf(point) !== NONE ? HAS_LEET : 0) | (isPictograph(point) ? HAS_PICTOGRAPH : 0);
}

const AMPERSAND = 38, PERCENT = 37, HASH = 35, SEMICOLON = 59;
const NAMED_REFERENCES = new Map<string, number>([["amp", 38], ["lt", 60], ["gt", 62], ["quot", 34], ["apos", 39], ["nbsp", 160]]);
/** The longest reference read: "&#x10ffff;" and "&#1114111;" are 10 characters. */
const LONGEST_REFERENCE = 10;

/**
 * The character an escape at `i` stands for: an HTML character reference ("&#107;", "&#x6b;",
 * "&amp;"), shown as the character by anything that renders the text as HTML, or a URL-encoded
 * letter ("%6B") or space between such letters or letters ("I%20will%20kill"; other bytes stay
 * as sent, so "100%" and "100%20" are text). Undefined when none.
 * Read by hand: a regular expression per "&" or "%" doubled the cost of a short text holding a URL.
 */
function escapedCharacter(input: string, i: number): { point: number; length: number } | undefined {
  if (input.charCodeAt(i) === PERCENT) {
    const point = percentByte(input, i);
    if (isAsciiLetter(point)) return { point, length: 3 };
    return point === SPACE && escapedWordBefore(input, i) && escapedWordAfter(input, i + 3) ? { point, length: 3 } : undefined;
  }
  if (input.charCodeAt(i + 1) === HASH) return numericReference(input, i);
  // Within the longest reference only: searching the whole rest of the text from every "&" made a
  // text of ampersands quadratic (40,000 of them: 15 ms).
  let end = i + 2;
  const last = Math.min(input.length, i + LONGEST_REFERENCE);
  while (end < last && input.charCodeAt(end) !== SEMICOLON) end++;
  if (end >= last) return undefined;
  const point = NAMED_REFERENCES.get(input.slice(i + 1, end)) ?? NONE;
  return point === NONE ? undefined : { point, length: end - i + 1 };
}

/** The byte a "%XX" at `i` encodes, or NONE. */
function percentByte(input: string, i: number): number {
  const high = hexValue(input.charCodeAt(i + 1)), low = hexValue(input.charCodeAt(i + 2));
  return high < 0 || low < 0 ? NONE : high * 16 + low;
}

const isAsciiLetter = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
/** A letter, or an escaped letter, ends just before `i`. */
const escapedWordBefore = (input: string, i: number): boolean => isAsciiLetter(input.charCodeAt(i - 1)) || (i >= 3 && input.charCodeAt(i - 3) === PERCENT && isAsciiLetter(percentByte(input, i - 3)));
/** A letter, or an escaped letter, starts at `i`. */
const escapedWordAfter = (input: string, i: number): boolean => isAsciiLetter(input.charCodeAt(i)) || (input.charCodeAt(i) === PERCENT && isAsciiLetter(percentByte(input, i)));

/** The most digits a numeric reference is read with: "&#1114111;" is 7. */
const MOST_REFERENCE_DIGITS = 7;

/**
 * A numeric reference at `i` ("&#107;", "&#x6b;"), also without its ";" where browsers show it
 * as the character anyway and the digits end plainly: a decimal one before anything but a digit
 * ("&#107&#105&#108&#108" is "kill"), a hexadecimal one before anything but a letter or digit.
 * Without ";", control characters stay as sent ("&#1" is no character anyone meant).
 */
function numericReference(input: string, i: number): { point: number; length: number } | undefined {
  const hex = (input.charCodeAt(i + 2) | 32) === 120; // "x" or "X"
  const from = i + (hex ? 3 : 2);
  let end = from;
  while (end < input.length && end - from <= MOST_REFERENCE_DIGITS && (hex ? hexValue(input.charCodeAt(end)) >= 0 : isDigit(input.charCodeAt(end)))) end++;
  if (end === from || end - from > MOST_REFERENCE_DIGITS) return undefined;
  const point = Number.parseInt(input.slice(from, end), hex ? 16 : 10);
  // No surrogate halves, nothing past Unicode, no NUL: those stay as sent.
  if (point <= 0 || point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff)) return undefined;
  if (input.charCodeAt(end) === SEMICOLON) return { point, length: end - i + 1 };
  const next = input.charCodeAt(end);
  if (point < 32 || (hex && (isAsciiLetter(next) || isDigit(next)))) return undefined;
  return { point, length: end - i };
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57;

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/**
 * Reverses the units pushed since `from`, so text stored backwards behind a right-to-left override
 * ("\u202etoidi na era uoy", shown as "you are an idiot") is read as it is shown; returns -1 (no
 * override open). Their offsets stay in order, so an explanation span inside such a run points
 * into the run, not always at the very characters.
 */
function readAsDisplayed(u: Units, from: number): number {
  u.cps.subarray(from, u.length).reverse();
  return -1;
}

/**
 * Memo of foldNonAscii: a text repeats its few non-ASCII characters, and Unicode tables are slow
 * to ask. Every BMP code point has a slot (at most 65,536 small arrays), so no text can fill the
 * memo for the texts after it: a bounded Map of 8,192 for all code points filled with 20,000
 * random CJK ideographs, after which every new character took the slow path (a 10,000-term
 * policy of CJK terms validated in about 0.8 s). Astral code points keep a bounded Map.
 */
const bmpFolds: (readonly number[] | undefined)[] = new Array(0x10000);
const astralFolds = new Map<number, readonly number[]>();
/**
 * Bounds the astral memo (there are over a million code points). Full, it starts again: kept
 * full, one request of 9,000 distinct astral characters left every later emoji to the slow path
 * for the life of the process (about twice the cost). At 8,192, a policy of 11,000 terms of rare
 * CJK ideographs (U+20000 on, tens of thousands of distinct ones) emptied it again and again: 5.5 s
 * to validate; 1.2 s at 65,536 (a few megabytes when full).
 */
const ASTRAL_MEMO_LIMIT = 65536;

function foldedNonAscii(point: number): readonly number[] {
  if (point < 0x10000) return (bmpFolds[point] ??= foldNonAscii(point));
  let out = astralFolds.get(point);
  if (out === undefined) {
    out = foldNonAscii(point);
    if (astralFolds.size >= ASTRAL_MEMO_LIMIT) astralFolds.clear();
    astralFolds.set(point, out);
  }
  return out;
}

/**
 * The most code points one character may fold to. Compatibility forms of Latin text stay within
 * it ("⒀" -> "(13)", "㎉" -> "kcal"); a few ligatures do not ("ﷺ" U+FDFA is 18 code points in
 * NFKD), and a text of 10,000 of them became 180,000 units to read, the model's work growing
 * with it (a 10-item request of them cost 8 to 14 times an English one). Past it the character
 * stands for itself.
 */
export const MAX_FOLD_LENGTH = 4;

/** The code points one non-ASCII code point folds to (none for an invisible one). */
function foldNonAscii(point: number): number[] {
  // A lone surrogate (half of a pair, sent alone) is no character: dropped, so it cannot split a word.
  if (point >= 0xd800 && point <= 0xdfff) return [];
  const raw = String.fromCodePoint(point);
  if (BLANK.test(raw)) return [SPACE];
  if (INVISIBLE.test(raw)) return [];
  if (/\s/u.test(raw)) return [SPACE];
  // Typographic apostrophes (phone keyboards type "don’t") read as the plain one: the model's
  // tokens kept them apart, and "I’m back to hurting myself" scored self_harm 0.13 against 0.60.
  if (point === 0x2019 || point === 0x2018 || point === 0x02bc) return [APOSTROPHE];
  if (LEET_PUNCTUATION.has(point)) return [point];
  const punctuation = punctuationFold(raw);
  if (punctuation !== NONE) return [punctuation];
  const enclosed = enclosedLetter(point);
  if (enclosed !== NONE) return [enclosed];
  // A vowel sign of an Indic or South-East Asian script is part of the word, not an accent:
  // dropped, "कमीना" (scoundrel) and "कामना" (wish) both read "कमन".
  if (isKeptMark(point) && COMBINING.test(raw)) return [point];
  const out: number[] = [];
  const decomposed = (foldConfusable(raw) ?? raw).normalize("NFKD");
  for (const part of decomposed) {
    if (COMBINING.test(part) && !isKeptMark(cp(part))) continue;
    const folded = foldConfusable(part) ?? part.toLowerCase();
    for (const ch of folded) out.push(cp(ch));
  }
  return out.length > MAX_FOLD_LENGTH ? [point] : out;
}

/**
 * Punctuation outside ASCII that compatibility folding leaves as it is, as the ASCII mark of its
 * kind: dashes "-", quotation marks '"', the ideographic full stop ".", any other a space. The
 * tokeniser takes every non-ASCII character for part of a word, so "idiot—go" and "“kill”" were
 * one unknown token each. The middle dot stays: it is a spacer between single letters ("k·i·l·l").
 */
function punctuationFold(raw: string): number {
  if (!PUNCTUATION.test(raw) || raw === "\u00b7") return NONE;
  // Forms NFKC makes ASCII ("！", "…") go the usual way.
  if (/^[\u0000-\u007f]+$/.test(raw.normalize("NFKC"))) return NONE;
  if (DASH.test(raw)) return cp("-");
  if (QUOTE.test(raw)) return cp('"');
  return raw === "\u3002" ? cp(".") : SPACE;
}
const PUNCTUATION = /\p{P}/u;
const DASH = /\p{Pd}/u;
const QUOTE = /[\p{Pi}\p{Pf}\u201a\u201e\u301d-\u301f]/u;

/**
 * The letter of an enclosed Latin letter NFKD leaves alone or brackets: negative circled and
 * negative squared capitals (U+1F150, U+1F170; emoji-styled letters) and parenthesised letters
 * (U+249C, U+1F110), which NFKD makes "(k)", so the brackets split the word they spell.
 */
function enclosedLetter(point: number): number {
  for (const first of ENCLOSED_ALPHABETS) {
    if (point >= first && point < first + 26) return 97 + point - first;
  }
  return NONE;
}
const ENCLOSED_ALPHABETS = [0x1f150, 0x1f170, 0x249c, 0x1f110];

function isSpaceCode(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/** Letter test per BMP code point, filled in as met: 0 = not asked yet, 1 = letter, 2 = not. */
const BMP_LETTER = new Uint8Array(0x10000);

function isLetter(point: number): boolean {
  // The ASCII test stays small enough to be inlined into the loops that call it for every unit.
  return point < 128 ? point >= 97 && point <= 122 : isNonAsciiLetter(point);
}

/** Brahmic scripts (Devanagari to Sinhala, Thai to Tibetan, Myanmar, Khmer), whose marks are vowels. */
function isVowelSignScript(point: number): boolean {
  return (point >= 0x0900 && point <= 0x0dff) || (point >= 0x0e00 && point <= 0x0fff) || (point >= 0x1000 && point <= 0x109f) || (point >= 0x1780 && point <= 0x17ff);
}

/**
 * Marks foldNonAscii keeps, as part of their letter: vowel signs, and the kana voicing marks
 * (NFKD writes "バ" as "ハ" and U+3099; dropped, "バカ" read "ハカ" and matched "ハカセ").
 */
function isKeptMark(point: number): boolean {
  return isVowelSignScript(point) || point === 0x3099 || point === 0x309a;
}

/** Letters, and the marks foldNonAscii keeps (a word does not break at them). */
function isNonAsciiLetter(point: number): boolean {
  if (point > 0xffff) return LETTER.test(String.fromCodePoint(point));
  let known = BMP_LETTER[point]!;
  if (known === 0) {
    // A lone surrogate makes a one-unit string that is not a letter, as the string test would say.
    const ch = String.fromCharCode(point);
    known = LETTER.test(ch) || (isKeptMark(point) && COMBINING.test(ch)) ? 1 : 2;
    BMP_LETTER[point] = known;
  }
  return known === 1;
}

function leetOf(point: number): number {
  if (point < 128) return point < 0 ? NONE : LEET_ASCII[point]!;
  return LEET_BY_CP.get(point) ?? NONE;
}

/** Step 2: leetspeak inside tokens that contain at least one letter. */
function undoLeet(u: Units): void {
  const chars = u.cps;
  const len = u.length;
  let symbolsAreLetters = false;
  const wordish = (c: number): boolean => isLetter(c) || (leetOf(c) !== NONE && (symbolsAreLetters || !WORD_ONLY.has(c)));
  let i = 0;
  while (i < len) {
    if (chars[i] === SPACE) { i++; continue; }
    let j = i;
    let letters = 0;
    let leet = 0;
    let digits = 0;
    let wordOnly = 0;
    while (j < len && chars[j] !== SPACE) {
      const c = chars[j]!;
      if (isLetter(c)) letters++;
      else if (leetOf(c) !== NONE) {
        leet++;
        if (WORD_ONLY.has(c)) wordOnly++;
      }
      if (isDigit(c)) digits++;
      j++;
    }
    symbolsAreLetters = digits === 0 && letters + wordOnly >= 3;
    for (let k = i; k < j && leet > 0; k++) {
      const c = chars[k]!;
      const mapped = leetOf(c);
      if (mapped === NONE) continue;
      if (letters > 0 && standsForLetter(chars, i, j, k, symbolsAreLetters, wordish)) chars[k] = mapped;
      else if (LEET_PUNCTUATION.has(c)) chars[k] = SPACE;
    }
    i = j;
  }
}

/** Whether the leet symbol at `k` of the token [from, to) stands for its letter. */
function standsForLetter(chars: Int32Array, from: number, to: number, k: number, symbolsAreLetters: boolean, wordish: (c: number) => boolean): boolean {
  const c = chars[k]!;
  // prev sees a symbol this loop already rewrote, as in "a$$" -> "as$" -> "ass".
  const prev = k > from ? chars[k - 1]! : NONE;
  const next = k + 1 < to ? chars[k + 1]! : NONE;
  // "!", "|", "+", "¡" and "†" stand for letters only between letters ("sh!t"); "$" also at a word end ("a$$").
  if (BETWEEN_LETTERS_ONLY.has(c)) return isLetter(prev) && isLetter(next);
  if (WORD_ONLY.has(c) && !symbolsAreLetters) return false;
  if (c === DOLLAR && !wordish(prev)) return false;
  return wordish(prev) || wordish(next);
}

/**
 * Step 3: join runs of >= 3 single letters split by spacers ("k i l l", "k.i-l_l" -> "kill"). A run
 * is split by spaces alone or by other spacers alone (mixed among themselves), so "k.i.l.l y.o.u"
 * stays two words; and a letter tied to another by a non-space spacer belongs to that word, not
 * to a run split by spaces ("d.o I h.a.v.e" is not "d.oih.ave").
 */
function joinSpacedLetters(u: Units, spacers: ReadonlySet<number> = SPACER_CPS, bySpacesToo = true): void {
  const chars = u.cps;
  const len = u.length;
  // Compacts in place: the write position never passes the read position, and while they differ
  // every unit read (from i - 1 on) lies beyond those written. Nothing moves until a run is joined.
  let w = 0;
  let i = 0;
  while (i < len) {
    // A lone letter (no letter on either side) opens a candidate run.
    if (letterAt(chars, len, i) && !letterAt(chars, len, i - 1) && !letterAt(chars, len, i + 1)) {
      const bySpaces = i + 1 < len && chars[i + 1] === SPACE;
      let last = i;
      let count = 1;
      if (!(bySpaces && (!bySpacesToo || tiedElsewhere(chars, len, i, -1)))) {
        while (last + 1 < len && joinsRun(chars[last + 1]!, bySpaces, spacers) && letterAt(chars, len, last + 2) && !letterAt(chars, len, last + 3) && !(bySpaces && tiedElsewhere(chars, len, last + 2, 1))) {
          last += 2;
          count++;
        }
      }
      if (count >= 3) {
        // Keep the letters, drop the spacers between them.
        for (let k = i; k <= last; k += 2, w++) moveUnit(u, k, w);
        i = last + 1;
        continue;
      }
    }
    if (w !== i) moveUnit(u, i, w);
    w++;
    i++;
  }
  u.length = w;
}

/** Whether `c` continues a run split by spaces (`bySpaces`) or by other spacers. */
function joinsRun(c: number, bySpaces: boolean, spacers: ReadonlySet<number> = SPACER_CPS): boolean {
  return bySpaces ? c === SPACE : c !== SPACE && spacers.has(c);
}

/** For a run split by spaces: the letter at `k` has a punctuation spacer and a letter on side `side`. */
function tiedElsewhere(chars: Int32Array, len: number, k: number, side: number): boolean {
  return isPunctuationSpacer(chars, len, k + side) && letterAt(chars, len, k + 2 * side);
}

function isPunctuationSpacer(chars: Int32Array, len: number, k: number): boolean {
  return k >= 0 && k < len && joinsRun(chars[k]!, false);
}

function letterAt(chars: Int32Array, len: number, k: number): boolean {
  return k >= 0 && k < len && isLetter(chars[k]!);
}

/** Output scratch: UTF-16 units of the text and their source offsets, grown as needed. */
let outUnits = new Uint16Array(256);
let outStart = new Int32Array(256);
let outEnd = new Int32Array(256);

/** Normalise text for feature extraction and lexicon matching. Pure and deterministic. */
export interface NormalizeOptions {
  /** Blank common HTML tags (blankHtmlTags): the model's reading; policy terms match the text as sent. */
  dropMarkup?: boolean;
  /**
   * Read zero-width spaces and word joiners (ZERO_WIDTH_SPACERS) as spaces instead of dropping them:
   * the second reading of a text that may use them in place of spaces (mayUseInvisibleSpaces).
   */
  invisibleAsSpace?: boolean;
}

/**
 * Zero-width characters put between words in place of spaces as well as inside words: dropped,
 * "you\u200bstupid\u200bidiot" is one unknown word (of 120 plainly harmful sentences 72 flag, 4
 * with U+200B or U+2060 for every space); read as spaces, "ki\u200bll" is two. A text holding
 * one between two letters is read both ways (engine.ts, term-matcher.ts).
 */
const ZERO_WIDTH_SPACERS = /[\u180e\u200b\u2060\ufeff]/u;
const BETWEEN_LETTERS = /\p{L}[\u180e\u200b\u2060\ufeff]+\p{L}/u;
/**
 * ZWNJ and ZWJ belong inside words (Persian and Indic spelling, emoji sequences), so they are
 * spaces in the second reading only between Latin letters, where they join nothing: put for every
 * space they glued a sentence into one word (57 of 61 harmful sentences lost every flag, while the
 * same with U+200B was caught). Not the soft hyphen: web pages put it at hyphenation points inside
 * Latin words, and read as a space it split them ("Scun\u00adthorpe" then flagged sexual; a review
 * of this change).
 */
const JOINERS = /[\u200c\u200d]/u;
const JOINER_BETWEEN_LATIN = /\p{Script=Latin}[\u200c\u200d]+\p{Script=Latin}/u;
const LATIN = /\p{Script=Latin}/u;

/** Whether `input` has a zero-width spacer between two letters: it may be read with them as spaces too. */
export function mayUseInvisibleSpaces(input: string): boolean {
  // The plain class first: a scan for it costs far less than one trying \p{L} at every place.
  return (ZERO_WIDTH_SPACERS.test(input) && BETWEEN_LETTERS.test(input)) || (JOINERS.test(input) && JOINER_BETWEEN_LATIN.test(input));
}

/**
 * Whether the joiner `point` at `i` opens a run of joiners between two Latin letters. Only a run's
 * first joiner is asked about the letters around it (one space stands for the run): asked of each,
 * a run of 10,000 was read in quadratic time (305 ms against 15, a review).
 */
function joinsLatinWords(input: string, i: number, point: number): boolean {
  if (!isJoinerCode(point) || (i > 0 && isJoinerCode(input.charCodeAt(i - 1)))) return false;
  let after = i + 1;
  while (after < input.length && isJoinerCode(input.charCodeAt(after))) after++;
  if (i === 0 || after >= input.length) return false;
  const previous = input.codePointAt(isLowSurrogate(input.charCodeAt(i - 1)) && i >= 2 ? i - 2 : i - 1)!;
  return LATIN.test(String.fromCodePoint(previous)) && LATIN.test(String.fromCodePoint(input.codePointAt(after)!));
}
const isJoinerCode = (code: number): boolean => code === 0x200c || code === 0x200d;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

export function normalizeText(input: string, options: NormalizeOptions = {}): NormalizedText {
  const seen = foldCodePoints(input, scratch, options.invisibleAsSpace === true);
  if (seen & HAS_PICTOGRAPH && separatePictographs(scratch, spare, isLetter)) {
    const swapped = scratch;
    scratch = spare;
    spare = swapped;
  }
  const u = scratch;
  if (options.dropMarkup && input.includes("<")) blankHtmlTags(u, isLetter);
  if (seen & HAS_MULTI_LEET) undoMultiCharLeet(u, isLetter);
  if (seen & HAS_EMPHASIS) stripPairedEmphasis(u);
  // Before leetspeak, which reads "+" and "|" between letters as "t" and "i".
  if (seen & HAS_SYMBOL_SPACER) joinSpacedLetters(u, SYMBOL_SPACER_CPS, false);
  if (seen & HAS_LEET) undoLeet(u);
  joinSpacedLetters(u);
  // Step 4: collapse repeated letters ("kiiiill" -> "kil") and runs of spaces; trim.
  // A unit is at most two UTF-16 code units.
  if (outUnits.length < u.length * 2) {
    outUnits = new Uint16Array(u.length * 2);
    outStart = new Int32Array(u.length * 2);
    outEnd = new Int32Array(u.length * 2);
  }
  const chars = u.cps;
  let n = 0;
  let last = SPACE;
  let wide = false;
  for (let k = 0; k < u.length; k++) {
    const c = chars[k]!;
    const at = u.at[k]!;
    const to = u.to[k]!;
    if (c === last && (c === SPACE || isLetter(c))) {
      // The kept unit now ends where the repeat does (both halves of an astral letter).
      if (n > 0) outEnd[n - 1] = to;
      if (n > 1 && last > 0xffff) outEnd[n - 2] = to;
      continue;
    }
    last = c;
    if (c > 0xff) wide = true;
    if (c > 0xffff) {
      outUnits[n] = 0xd800 + ((c - 0x10000) >> 10);
      outUnits[n + 1] = 0xdc00 + ((c - 0x10000) & 0x3ff);
      outStart[n] = outStart[n + 1] = at;
      outEnd[n] = outEnd[n + 1] = to;
      n += 2;
    } else {
      outUnits[n] = c;
      outStart[n] = at;
      outEnd[n] = to;
      n++;
    }
  }
  let m = n;
  while (m > 0 && outUnits[m - 1] === SPACE) m--;
  // One array cut in two for both offsets: allocating typed arrays costs more than filling them.
  const offsets = newInt32Array(2 * m);
  const start = offsets.subarray(0, m);
  const end = offsets.subarray(m);
  start.set(outStart.subarray(0, m));
  end.set(outEnd.subarray(0, m));
  return { text: stringOf(outUnits, m, wide), start, end };
}

/** Characters passed to one String.fromCharCode call (arguments live on the stack). */
const CHUNK = 4096;
let latin1 = Buffer.alloc(256);

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * The string of UTF-16 units [0, n): `wide` if any unit is over 0xff. The units hold no lone
 * surrogate (step 1 drops them), so decoding them as UTF-16 gives them back unchanged; decoding a
 * buffer is several times faster than fromCharCode, which is kept for big-endian machines.
 */
function stringOf(units: Uint16Array, n: number, wide: boolean): string {
  if (!wide) {
    // Nearly all text is Latin-1 after folding.
    if (latin1.length < n) latin1 = Buffer.alloc(units.length);
    latin1.set(units.subarray(0, n));
    return latin1.toString("latin1", 0, n);
  }
  if (LITTLE_ENDIAN) return Buffer.from(units.buffer, units.byteOffset, 2 * n).toString("utf16le");
  if (n <= CHUNK) return String.fromCharCode.apply(null, units.subarray(0, n) as unknown as number[]);
  const parts: string[] = [];
  for (let i = 0; i < n; i += CHUNK) parts.push(String.fromCharCode.apply(null, units.subarray(i, Math.min(n, i + CHUNK)) as unknown as number[]));
  return parts.join("");
}

/** Convenience for callers that need only the string (training, lexicon building). */
export function normalizeForMatching(input: string): string {
  return normalizeText(input).text;
}
