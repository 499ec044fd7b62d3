import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * ELD's pick of a text's language (`eld.detect(text).language`), computed on ELD's own tables by
 * ELD's own steps, about three times faster: the text's n-grams go into a Set rather than an object
 * used as one, and each n-gram's per-language scores are read from a flat array built the first
 * time the n-gram is seen, instead of a for-in over an object with integer keys (most of ELD's
 * time). The scores are integers, so the sums, and the pick, are exactly ELD's;
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
 * An n-gram's scores as [language, score, language, score, ...], built on first use (scoresOf
 * answers null for an n-gram not in the tables). Only n-grams of the tables are kept, so the map is bounded by them whatever texts
 * arrive (misses are remembered per word, in the bounded word cache below). Entries are never
 * dropped: one n-gram must keep one array, which stands for it in eldTopLanguage's set.
 */
const compiled = new Map<string, Int32Array>();
function scoresOf(ngram: string): Int32Array | null {
  const known = compiled.get(ngram);
  if (known !== undefined) return known;
  const raw = Object.hasOwn(ngramsData.ngrams, ngram) ? ngramsData.ngrams[ngram] : undefined;
  if (!raw) return null;
  const keys = Object.keys(raw);
  const entry = new Int32Array(keys.length * 2);
  keys.forEach((key, i) => {
    entry[2 * i] = Number(key);
    entry[2 * i + 1] = raw[Number(key)]! + BASE_NGRAM_SCORE;
  });
  compiled.set(ngram, entry);
  return entry;
}

/** How many n-grams' scores are held (tests: texts of unknown words must not grow it). */
export const compiledNgramCount = (): number => compiled.size;

/**
 * A word's n-grams' scores (those in the tables), built on first use: most words recur, and
 * building and hashing their n-gram strings was most of the pick's time. Emptied when full, as
 * texts can bring any number of new words.
 */
const wordScores = new Map<string, Int32Array[]>();
const MAX_WORDS = 20_000;
function scoresOfWord(word: string): Int32Array[] {
  let entry = wordScores.get(word);
  if (entry !== undefined) return entry;
  entry = [];
  const len = Math.min(word.length, 70);
  // 4-byte n-grams with a stride of 3, the first marked by a leading space, the last by a trailing one.
  let j = 0;
  for (; j + 4 < len; j += 3) {
    const scores = scoresOf((j === 0 ? " " : "") + word.substring(j, j + 4));
    if (scores !== null) entry.push(scores);
  }
  const last = scoresOf(`${j === 0 ? " " : ""}${word.substring(len !== 3 ? len - 4 : 0)} `);
  if (last !== null) entry.push(last);
  if (wordScores.size >= MAX_WORDS) wordScores.clear();
  wordScores.set(word, entry);
  return entry;
}

const totals = new Float64Array(LANGUAGES.length);

/** ELD's detected language of `text` (an ISO 639-1 code), or "" when it finds none. */
export function eldTopLanguage(text: string): string {
  const words = utf8ByteWords(text.substring(0, 1000).replace(separators, " ").trim().toLowerCase());
  // Each distinct n-gram counts once (ELD keeps them in a set); one n-gram has one scores array, so
  // the arrays stand for their n-grams. The scores are integers: the order of the sums does not matter.
  const seen = new Set<Int32Array>();
  totals.fill(0);
  for (const word of words) {
    for (const scores of scoresOfWord(word)) {
      if (seen.has(scores)) continue;
      seen.add(scores);
      for (let i = 0; i < scores.length; i += 2) totals[scores[i]!]! += scores[i + 1]!;
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
