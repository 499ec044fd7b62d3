import { normalizeForMatching } from "../../normalize/normalize.js";
import { tokenize, type Token } from "../../model/features.js";
import type { TermList } from "./term-list.js";

/** One lexicon match, with offsets into the normalised text. */
export interface LexiconHit {
  term: string;
  start: number;
  end: number;
  weight: number;
}

interface Phrase {
  words: string[];
  stem: boolean;
  term: string;
  weight: number;
}

/** A term list compiled for matching against normalised, tokenised text. */
export interface CompiledTermList {
  readonly name: string;
  /** Whether the list has a bit in the shared word index (see MAX_INDEXED); without one it reads every word. */
  readonly indexed: boolean;
  /** `words` (the token strings) may be passed in when several lists scan the same text. */
  scan(text: string, tokens: readonly Token[], words?: readonly string[]): LexiconHit[];
}

/** The phrases starting with one word, in list order. */
interface Bucket {
  phrases: Phrase[];
  /** The second words they need, or undefined when some phrase can match without one exact second word. */
  seconds: ReadonlySet<string> | undefined;
}

function secondWords(phrases: readonly Phrase[]): ReadonlySet<string> | undefined {
  // A one-word phrase needs no second word; a two-word stem phrase needs one that starts with its stem.
  if (phrases.some((p) => p.words.length === 1 || (p.words.length === 2 && p.stem))) return undefined;
  return new Set(phrases.map((p) => p.words[1]!));
}

// Matching on whole normalised words keeps "cocktail" from matching "cock" and "sextant" from "sex".
export function compileTermList(list: TermList): CompiledTermList {
  const byFirst = new Map<string, Phrase[]>();
  const stems: Phrase[] = [];
  for (const [raw, weight] of Object.entries(list.terms)) {
    const stem = raw.endsWith("*");
    // Split on hyphens too, as the tokenizer does: "14-year-old" normalises to "ia-year-old" (digits
    // inside a word read as leetspeak) and is matched as the words "ia year old".
    const words = normalizeForMatching(stem ? raw.slice(0, -1) : raw).split(/[ -]/).filter((w) => w.length > 0);
    if (words.length === 0) continue;
    const phrase: Phrase = { words, stem, term: raw, weight };
    if (stem && words.length === 1) {
      stems.push(phrase);
      continue;
    }
    const first = words[0]!;
    const bucket = byFirst.get(first) ?? [];
    bucket.push(phrase);
    byFirst.set(first, bucket);
  }
  const buckets = new Map<string, Bucket>();
  for (const [first, phrases] of byFirst) buckets.set(first, { phrases, seconds: secondWords(phrases) });
  // Stems by first character (a word can only start with a stem that shares it); list order kept.
  const stemsByChar = new Map<string, Phrase[]>();
  for (const p of stems) {
    const k = p.words[0]!.charAt(0);
    const bucket = stemsByChar.get(k) ?? [];
    bucket.push(p);
    stemsByChar.set(k, bucket);
  }
  const bit = indexList(byFirst.keys(), stems.map((p) => p.words[0]!));
  const none: Phrase[] = [];
  return {
    name: list.name,
    indexed: bit !== 0,
    scan(text, tokens, words) {
      const ws = words ?? tokens.map((t) => text.slice(t.start, t.end));
      const starts = bit === 0 ? undefined : startBits(ws);
      const hits: LexiconHit[] = [];
      if (starts !== undefined && (startBitsOfAll & bit) === 0) return hits;
      for (let i = 0; i < tokens.length; i++) {
        // Most words start nothing in this list: the shared index says so without this list's lookups.
        if (starts !== undefined && (starts[i]! & bit) === 0) continue;
        const word = ws[i]!;
        let best: LexiconHit | undefined;
        let bestWords = 0;
        const bucket = buckets.get(word);
        // When every phrase needs a certain second word, one lookup rules them all out.
        const phrases = bucket === undefined || (bucket.seconds !== undefined && !bucket.seconds.has(ws[i + 1]!)) ? none : bucket.phrases;
        for (const p of phrases) {
          let ok = true;
          for (let k = 1; k < p.words.length && ok; k++) {
            const w = ws[i + k];
            ok = w !== undefined && (k === p.words.length - 1 && p.stem ? w.startsWith(p.words[k]!) : w === p.words[k]);
          }
          if (!ok) continue;
          // Longest phrase wins ("fucked her" over nothing, "child porn" over "child"), then the heavier.
          // Counted in words: comparing with the hit's character span let the first phrase found win.
          if (!best || p.words.length > bestWords || (p.words.length === bestWords && p.weight > best.weight)) {
            best = { term: p.term, start: tokens[i]!.start, end: tokens[i + p.words.length - 1]!.end, weight: p.weight };
            bestWords = p.words.length;
          }
        }
        if (!best) {
          for (const p of stemsByChar.get(word.charAt(0)) ?? none) {
            if (word.startsWith(p.words[0]!)) {
              best = { term: p.term, start: tokens[i]!.start, end: tokens[i]!.end, weight: p.weight };
              break;
            }
          }
        }
        if (best) hits.push(best);
      }
      return hits;
    },
  };
}

/*
 * One index of where every compiled list can match, shared by the lists: the engine scans each text
 * with some twenty-six lists (getLexicons), and most words start no phrase and no stem of any of them. Each list has a bit;
 * a word's bits (lists with a phrase starting with the word, or a stem the word starts with) are
 * looked up once per text, and a list skips words without its bit. Lists compiled past the first
 * MAX_INDEXED (tests compile their own) get no bit and look at every word.
 */
export const MAX_INDEXED = 31;
let indexed = 0;
/** First words of phrases (stems aside) -> bits of the lists that have them. */
const firstWordBits = new Map<string, number>();
/** Stems by their first two UTF-16 units (prefixKey), each with its list's bit; one-unit stems apart. */
const stemBitsByPrefix = new Map<number, { stem: string; bit: number }[]>();
const shortStemBits: { stem: string; bit: number }[] = [];
const prefixKey = (word: string): number => word.charCodeAt(0) * 0x10000 + word.charCodeAt(1);
/**
 * Filters in front of the two maps, one bit per class of word: its first two characters and length
 * for first words, its first two characters for stems. A word in a class without indexed words
 * skips the lookup (which has to hash the word first); most words of a text do.
 */
const firstWordClasses = new Uint8Array(1 << 16);
const stemClasses = new Uint8Array(1 << 16);
const wordClass = (word: string): number => (Math.imul(word.charCodeAt(0), 961) + Math.imul(word.charCodeAt(1) | 0, 31) + word.length) & 0xffff;
const stemClass = (word: string): number => (Math.imul(word.charCodeAt(0), 961) + Math.imul(word.charCodeAt(1) | 0, 31)) & 0xffff;

/** Adds a list's first words and stems to the shared index; returns its bit, or 0 when the index is full. */
function indexList(firstWords: Iterable<string>, stems: readonly string[]): number {
  if (indexed === MAX_INDEXED) return 0;
  const bit = 1 << indexed++;
  for (const w of firstWords) {
    firstWordBits.set(w, (firstWordBits.get(w) ?? 0) | bit);
    firstWordClasses[wordClass(w)] = 1;
  }
  for (const stem of stems) {
    if (stem.length < 2) {
      shortStemBits.push({ stem, bit });
      continue;
    }
    stemClasses[stemClass(stem)] = 1;
    const k = prefixKey(stem);
    const bucket = stemBitsByPrefix.get(k) ?? [];
    bucket.push({ stem, bit });
    stemBitsByPrefix.set(k, bucket);
  }
  lastWords = undefined;
  return bit;
}

/**
 * The bits of the lists that may match at each word, written to `out` (at least words.length long);
 * returns the union of them.
 */
function wordBits(words: readonly string[], out: Int32Array): number {
  let all = 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    let bits = firstWordClasses[wordClass(word)] === 0 ? 0 : (firstWordBits.get(word) ?? 0);
    if (word.length >= 2 && stemClasses[stemClass(word)] !== 0) {
      const stems = stemBitsByPrefix.get(prefixKey(word));
      if (stems !== undefined) for (const s of stems) if ((bits & s.bit) === 0 && word.startsWith(s.stem)) bits |= s.bit;
    }
    for (const s of shortStemBits) if ((bits & s.bit) === 0 && word.startsWith(s.stem)) bits |= s.bit;
    out[i] = bits;
    all |= bits;
  }
  return all;
}

/**
 * wordBits of `words`. A frozen array cannot change, so the bits of the last one are kept and the
 * lists scanning one text (the engine freezes its words) share one set of lookups.
 */
let lastWords: readonly string[] | undefined;
let lastBits = new Int32Array(256);
/** The union of lastBits: a list whose bit is not in it has nothing to match in the text. */
let startBitsOfAll = 0;
function startBits(words: readonly string[]): Int32Array {
  if (words === lastWords) return lastBits;
  if (lastBits.length < words.length) lastBits = new Int32Array(Math.max(words.length, 2 * lastBits.length));
  startBitsOfAll = wordBits(words, lastBits);
  lastWords = Object.isFrozen(words) ? words : undefined;
  return lastBits;
}

/**
 * Evidence in [0, 1) from matched vocabulary: weight per 50 words (a term counts at most twice), so a
 * long benign text with a couple of stray words stays low while a dense explicit passage rises.
 */
export function evidenceScore(hits: readonly LexiconHit[], tokenCount: number): number {
  if (hits.length === 0) return 0; // what the formula gives, without building the map
  const seen = new Map<string, number>();
  let sum = 0;
  for (const h of hits) {
    const n = seen.get(h.term) ?? 0;
    if (n >= 2) continue;
    seen.set(h.term, n + 1);
    sum += h.weight;
  }
  const density = sum / Math.max(1, tokenCount / 50);
  return 1 - Math.exp(-density / 2);
}

/** The strongest indicator weight present (for "is a minor mentioned at all" style checks). */
export function strongestHit(hits: readonly LexiconHit[]): number {
  let best = 0;
  for (const h of hits) best = Math.max(best, h.weight);
  return best;
}

/** Convenience: tokenise normalised text and scan it. */
export function scanText(list: CompiledTermList, normalized: string): { hits: LexiconHit[]; tokens: number } {
  const tokens = tokenize(normalized);
  return { hits: list.scan(normalized, tokens), tokens: tokens.length };
}
