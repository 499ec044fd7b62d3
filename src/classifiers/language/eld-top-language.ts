import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * ELD's pick of a text's language (`eld.detect(text).language`), computed on ELD's own tables by
 * ELD's own steps, several times faster: each n-gram's per-language scores are read from a flat
 * array built the first time the n-gram is seen, instead of a for-in over an object with integer
 * keys (most of ELD's time); a word's n-grams and their summed scores are kept, so a recurring word
 * is one look-up; each n-gram is counted once per text by marking it with the text's number
 * rather than collecting the text's n-grams in a set; and an ASCII text is cut into words in one
 * pass. The scores are integers, so the sums, and the pick, are exactly ELD's;
 * test/classifiers/language-fast-path.test.ts checks it on varied texts in many languages.
 * Only the pick is computed: a text whose pick is a covered language needs nothing else, and
 * the rare other case asks ELD itself (read-language.ts).
 *
 * The steps below follow eld 2.1.0's languageDetector.js (Apache-2.0, Nito T.M.).
 */

interface EldTables {
  languages: Record<number, string>;
  ngrams: Record<string, Record<number, number>>;
}

// eld's package exports only its entry files; the tables, separator pattern and byte dictionary it
// loads lie beside them. Their real path makes them the very modules eld/medium loaded (no second copy).
const require = createRequire(import.meta.url);
function eldSource(file: string): string {
  for (const dir of require.resolve.paths("eld") ?? []) {
    const candidate = path.join(dir, "eld", "src", file);
    if (fs.existsSync(candidate)) return pathToFileURL(fs.realpathSync(candidate)).href;
  }
  throw new Error(`eld's ${file} not found`);
}
const [{ ngramsData }, { separators }, { dictionary }] = (await Promise.all([
  import(eldSource("ngrams/medium.js")),
  import(eldSource("regexPatterns.js")),
  import(eldSource("dictionary.js")),
])) as [{ ngramsData: EldTables }, { separators: RegExp }, { dictionary: Record<number, string> }];

const LANGUAGES: readonly string[] = Object.keys(ngramsData.languages).map((i) => ngramsData.languages[Number(i)]!);
/** ELD stores each score less this minimum, to keep its tables small. */
const BASE_NGRAM_SCORE = 53;

/**
 * An n-gram of ELD's tables: its scores as [language, score, language, score, ...], and the
 * number of the last text that counted it (eldTopLanguage counts each n-gram once per text).
 */
interface Ngram {
  scores: Int32Array;
  countedIn: number;
}

/**
 * N-grams built on first use (ngramOf answers null for one not in the tables). Only n-grams of the
 * tables are kept, so the map is bounded by them whatever texts arrive (misses are remembered per
 * word, in the bounded word cache below). Entries are never dropped: an n-gram must stay one
 * object, whose countedIn marks it counted.
 */
const compiled = new Map<string, Ngram>();
function ngramOf(ngram: string): Ngram | null {
  const known = compiled.get(ngram);
  if (known !== undefined) return known;
  const raw = Object.hasOwn(ngramsData.ngrams, ngram) ? ngramsData.ngrams[ngram] : undefined;
  if (!raw) return null;
  const keys = Object.keys(raw);
  const scores = new Int32Array(keys.length * 2);
  keys.forEach((key, i) => {
    scores[2 * i] = Number(key);
    scores[2 * i + 1] = raw[Number(key)]! + BASE_NGRAM_SCORE;
  });
  const entry = { scores, countedIn: 0 };
  compiled.set(ngram, entry);
  return entry;
}

/** How many n-grams' scores are held (tests: texts of unknown words must not grow it). */
export const compiledNgramCount = (): number => compiled.size;

/**
 * A word: its distinct n-grams in the tables, their scores summed per language (the same pairs'
 * layout), and the number of the last text that counted it.
 */
interface Word {
  ngrams: Ngram[];
  summed: Int32Array;
  countedIn: number;
}

/**
 * Words built on first use: most words recur, and building and hashing their n-gram strings was
 * most of the pick's time. Emptied when full, as texts can bring any number of new words.
 */
const words = new Map<string, Word>();
const MAX_WORDS = 20_000;
const summing = new Int32Array(256);
function wordOf(word: string): Word {
  let entry = words.get(word);
  if (entry !== undefined) return entry;
  const ngrams: Ngram[] = [];
  const add = (ngram: Ngram | null) => {
    if (ngram !== null && !ngrams.includes(ngram)) ngrams.push(ngram);
  };
  const len = Math.min(word.length, 70);
  // 4-byte n-grams with a stride of 3, the first marked by a leading space, the last by a trailing one.
  let j = 0;
  for (; j + 4 < len; j += 3) add(ngramOf((j === 0 ? " " : "") + word.substring(j, j + 4)));
  add(ngramOf(`${j === 0 ? " " : ""}${word.substring(len !== 3 ? len - 4 : 0)} `));
  entry = { ngrams, summed: sumScores(ngrams), countedIn: 0 };
  if (words.size >= MAX_WORDS) words.clear();
  words.set(word, entry);
  return entry;
}

/** The n-grams' scores summed per language, as [language, sum, ...] (integers: exact in any order). */
function sumScores(ngrams: readonly Ngram[]): Int32Array {
  summing.fill(0);
  const present: number[] = [];
  for (const { scores } of ngrams) {
    for (let i = 0; i < scores.length; i += 2) {
      if (!present.includes(scores[i]!)) present.push(scores[i]!);
      summing[scores[i]!]! += scores[i + 1]!;
    }
  }
  const summed = new Int32Array(present.length * 2);
  present.forEach((language, i) => {
    summed[2 * i] = language;
    summed[2 * i + 1] = summing[language]!;
  });
  return summed;
}

const totals = new Float64Array(LANGUAGES.length);
let textsCounted = 0;

function addScores(scores: Int32Array): void {
  for (let i = 0; i < scores.length; i += 2) totals[scores[i]!]! += scores[i + 1]!;
}

/** ELD's detected language of `text` (an ISO 639-1 code), or "" when it finds none. */
export function eldTopLanguage(text: string): string {
  // Each distinct n-gram counts once (ELD keeps them in a set): n-grams and words carry the number
  // of the text that last counted them. A word none of whose n-grams is counted yet adds its sums
  // in one go; otherwise its uncounted n-grams are added one by one. Integer scores: the order of
  // the sums does not matter.
  const current = ++textsCounted;
  totals.fill(0);
  for (const word of textWords(text)) {
    const entry = wordOf(word);
    if (entry.countedIn === current) continue;
    entry.countedIn = current;
    const ngrams = entry.ngrams;
    let fresh = true;
    for (let i = 0; i < ngrams.length; i++) if (ngrams[i]!.countedIn === current) fresh = false;
    if (fresh) {
      for (let i = 0; i < ngrams.length; i++) ngrams[i]!.countedIn = current;
      addScores(entry.summed);
      continue;
    }
    for (let i = 0; i < ngrams.length; i++) {
      const ngram = ngrams[i]!;
      if (ngram.countedIn === current) continue;
      ngram.countedIn = current;
      addScores(ngram.scores);
    }
  }
  // The first language with the highest positive total, as ELD's getMaxLang.
  let best = -1;
  let bestTotal = 0;
  for (let i = 0; i < totals.length; i++) {
    if (totals[i]! > 0 && totals[i]! > bestTotal) [best, bestTotal] = [i, totals[i]!];
  }
  return best < 0 ? "" : LANGUAGES[best]!;
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** ELD's words of `text`: its first 1,000 characters, separators to spaces, trimmed, lower case, cut near 350 bytes. */
export function textWords(text: string): string[] {
  const head = text.substring(0, 1000);
  return ASCII_ONLY.test(head) ? asciiWords(head.toLowerCase()) : eldTextWords(head);
}

/** The same by ELD's own steps (any text; the test holds the ASCII path to it). */
export function eldTextWords(text: string): string[] {
  return utf8ByteWords(text.substring(0, 1000).replace(separators, " ").trim().toLowerCase());
}

const isLetter = (code: number) => code >= 0x61 && code <= 0x7a; // the text is in lower case here
const isApostrophe = (code: number) => code === 0x27 || code === 0x60;

/**
 * The words ELD's steps make of an ASCII text (already in lower case), without building the
 * intermediate strings. On ASCII, ELD's separators pattern (a run of anything but letters, not
 * ending in an apostrophe or backtick) turns each run of non-letters into a space followed by the
 * run's trailing apostrophes, or leaves it as it is when it holds only apostrophes; letters are
 * a-z. Then, as utf8ByteWords (one byte per character): words end at spaces, and reading stops at
 * a space once more than 350 characters are read, or after the character that takes it past 380.
 * test/classifiers/language-fast-path.test.ts holds it to ELD's steps (eldTextWords).
 */
function asciiWords(lower: string): string[] {
  const out: string[] = [];
  const n = lower.length;
  let read = 0; // characters of the trimmed, replaced text read so far (utf8ByteWords' countBytes)
  let wordStart = -1;
  let i = 0;
  while (i < n) {
    if (isLetter(lower.charCodeAt(i))) {
      if (wordStart < 0) wordStart = i;
      read++;
      i++;
      if (read > 380) break;
      continue;
    }
    let end = i;
    while (end < n && !isLetter(lower.charCodeAt(end))) end++;
    let kept = end;
    while (kept > i && isApostrophe(lower.charCodeAt(kept - 1))) kept--;
    if (kept > i) {
      // The run becomes one space (none at the very start: trimmed), then its trailing apostrophes.
      if (wordStart >= 0) {
        out.push(lower.slice(wordStart, i));
        wordStart = -1;
      }
      if (read > 0 || out.length > 0) {
        if (read > 350) return out;
        read++;
        if (read > 380) return out;
      }
      i = kept;
    }
    // Apostrophes kept: part of a word.
    for (; i < end; i++) {
      if (wordStart < 0) wordStart = i;
      read++;
      if (read > 380) {
        i++;
        break;
      }
    }
    if (read > 380) break;
  }
  if (wordStart >= 0) out.push(lower.slice(wordStart, i));
  return out;
}

/** ELD's strToUtf8Bytes: words as strings of one character per UTF-8 byte (its own dictionary), cut near 350 bytes. */
function utf8ByteWords(str: string): string[] {
  let encoded = "";
  const words: string[] = [];
  let countBytes = 0;
  for (let i = 0; i < str.length; i++) {
    let code = str.charCodeAt(i);
    if (code < 0x80) {
      if (code === 32) {
        if (encoded !== "") {
          words.push(encoded);
          encoded = "";
        }
        if (countBytes > 350) break;
      } else {
        encoded += str[i];
      }
      countBytes++;
    } else if (code < 0x800) {
      encoded += dictionary[0xc0 | (code >> 6)]! + dictionary[0x80 | (code & 0x3f)]!;
      countBytes += 2;
    } else if (code < 0xd800 || code >= 0xe000) {
      encoded += dictionary[0xe0 | (code >> 12)]! + dictionary[0x80 | ((code >> 6) & 0x3f)]! + dictionary[0x80 | (code & 0x3f)]!;
      countBytes += 3;
    } else {
      i++;
      code = 0x10000 + (((code & 0x3ff) << 10) | (str.charCodeAt(i) & 0x3ff));
      encoded += dictionary[0xf0 | (code >> 18)]! + dictionary[0x80 | ((code >> 12) & 0x3f)]! + dictionary[0x80 | ((code >> 6) & 0x3f)]! + dictionary[0x80 | (code & 0x3f)]!;
      countBytes += 4;
    }
    if (countBytes > 380) break;
  }
  if (encoded !== "") words.push(encoded);
  return words;
}
