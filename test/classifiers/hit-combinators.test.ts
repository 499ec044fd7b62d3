import { describe, expect, it } from "vitest";
import { combinePhrases, followedBy, getLexicons, outside, type LexiconHit } from "../../src/classifiers/rules/lexicon/index.js";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { firstTokenAtOrAfter, tokenize } from "../../src/classifiers/model/features.js";
import { seededRandom } from "../support/seeded-random.js";

// Sentences written for these tests (not from any dataset).

const hit = (term: string, start: number, end: number, weight: number): LexiconHit => ({ term, start, end, weight });

describe("combinePhrases", () => {
  it("counts overlapping hits as one statement, at the strongest of them", () => {
    expect(combinePhrases([hit("so mature for", 4, 17, 0.6), hit("mature for your age", 7, 26, 0.6)])).toBeCloseTo(0.6);
    expect(combinePhrases([hit("when are your parents", 0, 21, 0.4), hit("are your parents home", 5, 26, 0.6)])).toBeCloseTo(0.6);
  });

  it("adds distinct statements as a noisy-OR and counts a repeated phrase once", () => {
    expect(combinePhrases([hit("a", 0, 5, 0.6), hit("b", 10, 15, 0.6)])).toBeCloseTo(0.84);
    expect(combinePhrases([hit("a", 0, 5, 0.6), hit("a", 10, 15, 0.6)])).toBeCloseTo(0.6);
    expect(combinePhrases([hit("b", 10, 15, 0.5), hit("a", 0, 5, 0.5)])).toBeCloseTo(0.75);
    expect(combinePhrases([])).toBe(0);
  });
});

describe("outside", () => {
  it("agrees with comparing every pair, on random hits", () => {
    const next = seededRandom(7);
    const randomHits = (n: number) => Array.from({ length: n }, (_, i) => {
      const start = Math.floor(next() * 200);
      return hit(`t${i}`, start, start + 1 + Math.floor(next() * 12), 1);
    });
    for (let round = 0; round < 200; round++) {
      const hits = randomHits(1 + Math.floor(next() * 15));
      const inside = randomHits(Math.floor(next() * 15));
      const pairwise = hits.filter((h) => !inside.some((x) => h.start < x.end && x.start < h.end));
      expect(outside(hits, inside)).toEqual(pairwise);
    }
  });
});

describe("followedBy", () => {
  /** The rule as first written: every act against every minor word (quadratic, kept as the reference). */
  function reference(text: string, tokens: ReturnType<typeof tokenize>, words: string[], hits: LexiconHit[], anchors: LexiconHit[], reach: number): LexiconHit[] {
    const out: LexiconHit[] = [];
    for (const h of hits) {
      const next = firstTokenAtOrAfter(tokens, h.end);
      let best = 0;
      for (const a of anchors) {
        const at = firstTokenAtOrAfter(tokens, a.start);
        if (a.start < h.end || at - next > reach) continue;
        if (words[at - 2] === "as" && words[at - 1] === "a") continue;
        if (!/[.!?\n]/.test(text.slice(h.end, a.start))) best = Math.max(best, Math.min(h.weight, a.weight));
      }
      if (best > 0) out.push({ ...h, weight: best });
    }
    return out;
  }

  it("agrees with pairing every act with every minor word, on texts of shuffled phrases", () => {
    const parts = ["he molested", "a child", "as a child", "the kids", "and then", "seduced", "a 14 year old", ".", "at school", "groped", "a teen", "yesterday"];
    const next = seededRandom(11);
    const lex = getLexicons();
    for (let round = 0; round < 100; round++) {
      const text = normalizeForMatching(Array.from({ length: 30 }, () => parts[Math.floor(next() * parts.length)]!).join(" "));
      const tokens = tokenize(text);
      const words = tokens.map((t) => text.slice(t.start, t.end));
      const acts = lex.sexualActs.scan(text, tokens, words);
      const minors = lex.minors.scan(text, tokens, words);
      expect(followedBy(text, tokens, words, acts, minors, 4)).toEqual(reference(text, tokens, words, acts, minors, 4));
    }
  });
});
