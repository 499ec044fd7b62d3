import { normalizeForMatching } from "../normalize/normalize.js";
import { tokenize, type Token } from "../trained/features.js";
import type { TermList } from "./terms.js";

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
  /** `words` (the token strings) may be passed in when several lists scan the same text. */
  scan(text: string, tokens: readonly Token[], words?: readonly string[]): LexiconHit[];
}

// Matching on whole normalised words keeps "cocktail" from matching "cock" and "sextant" from "sex".
export function compileTermList(list: TermList): CompiledTermList {
  const byFirst = new Map<string, Phrase[]>();
  const stems: Phrase[] = [];
  for (const [raw, weight] of Object.entries(list.terms)) {
    const stem = raw.endsWith("*");
    const words = normalizeForMatching(stem ? raw.slice(0, -1) : raw).split(" ").filter((w) => w.length > 0);
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
  // Stems by first character (a word can only start with a stem that shares it); list order kept.
  const stemsByChar = new Map<string, Phrase[]>();
  for (const p of stems) {
    const k = p.words[0]!.charAt(0);
    const bucket = stemsByChar.get(k) ?? [];
    bucket.push(p);
    stemsByChar.set(k, bucket);
  }
  const none: Phrase[] = [];
  return {
    name: list.name,
    scan(text, tokens, words) {
      const ws = words ?? tokens.map((t) => text.slice(t.start, t.end));
      const wordAt = (_text: string, _tokens: readonly Token[], i: number): string | undefined => ws[i];
      const hits: LexiconHit[] = [];
      for (let i = 0; i < tokens.length; i++) {
        const word = wordAt(text, tokens, i)!;
        let best: LexiconHit | undefined;
        for (const p of byFirst.get(word) ?? none) {
          let ok = true;
          for (let k = 1; k < p.words.length && ok; k++) {
            const w = wordAt(text, tokens, i + k);
            ok = w !== undefined && (k === p.words.length - 1 && p.stem ? w.startsWith(p.words[k]!) : w === p.words[k]);
          }
          if (!ok) continue;
          // Longest phrase wins ("fucked her" over nothing, "child porn" over "child").
          if (!best || p.words.length > best.end - best.start || p.weight > best.weight) {
            best = { term: p.term, start: tokens[i]!.start, end: tokens[i + p.words.length - 1]!.end, weight: p.weight };
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

/**
 * Evidence in [0, 1) from matched vocabulary: weight per 50 words (a term counts at most twice), so a
 * long benign text with a couple of stray words stays low while a dense explicit passage rises.
 */
export function evidenceScore(hits: readonly LexiconHit[], tokenCount: number): number {
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
