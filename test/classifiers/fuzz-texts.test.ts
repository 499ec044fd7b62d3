import { describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import type { Verdict } from "../../src/classifiers/classifier.js";
import { loadTrainedClassifier } from "../../src/classifiers/engine/index.js";
import { seededRandom } from "../support/seeded-random.js";

// Seeded random texts mixing harmful phrases with the characters normalisation has to survive
// (surrogate pairs, lone surrogates, combining marks, zero-width and bidi controls, look-alikes,
// digits as leetspeak): the committed classifier never throws, scores stay in [0, 1], and every
// explanation span points at the text it quotes, by code-point offsets into the original.

const CASES = 400;

const PIECES = [
  "i will kill you", "you are a worthless idiot", "i want to die", "muslims are vermin", "send nudes", "he molested a child",
  "k1ll y0u", "i d i o t", "idiooooot", "kіll yоu" /* Cyrillic і and о */, "ｋｉｌｌ", "thanks for the help", "see you at 6",
  "\u{1F600}", "\u{1F1FA}\u{1F1F8}", "\ud800", "\udc00", "e\u0301\u0301\u0301", "\u200b", "\u200d", "\u202e", "\ufeff", "\u0000",
  "\n\n", ". ", "?", "!!!", "...", "'", "\u2019", "-", "@", "#", "$", "1337", "ß", "İ", "ﬁ", "Ⅻ", "𝐤𝐢𝐥𝐥", "\t", "   ",
];

function randomText(next: () => number): string {
  const parts: string[] = [];
  for (let i = 0, n = 1 + Math.floor(next() * 30); i < n; i++) parts.push(PIECES[Math.floor(next() * PIECES.length)]!);
  return parts.join(next() < 0.5 ? " " : "");
}

describe("the committed classifier on random texts", () => {
  const trained = loadTrainedClassifier();
  /** The trained classifier answers synchronously; a promise here would be a change worth failing on. */
  const classify = (text: string): Verdict => {
    const verdict = trained.classify(text);
    if (verdict instanceof Promise) throw new Error("expected a synchronous verdict");
    return verdict;
  };

  it("never throws, keeps scores in [0, 1] and quotes each span from the original text", () => {
    let explained = 0;
    for (let index = 0; index < CASES; index++) {
      const text = randomText(seededRandom(77 + index));
      const points = Array.from(text);
      const verdict = classify(text);
      for (const [category, entry] of Object.entries(verdict.categories)) {
        expect(CATEGORY_IDS, `case ${index}`).toContain(category);
        expect(entry!.score, `case ${index} ${category}`).toBeGreaterThanOrEqual(0);
        expect(entry!.score, `case ${index} ${category}`).toBeLessThanOrEqual(1);
      }
      for (const spans of Object.values(verdict.explanations)) {
        for (const span of spans!) {
          explained++;
          expect(span.start, `case ${index}`).toBeGreaterThanOrEqual(0);
          expect(span.end, `case ${index}`).toBeLessThanOrEqual(points.length);
          expect(span.start, `case ${index}`).toBeLessThan(span.end);
          expect(span.text, `case ${index}: ${JSON.stringify(text)}`).toBe(points.slice(span.start, span.end).join(""));
        }
      }
      // Same input, same answer.
      expect(classify(text), `case ${index}`).toEqual(verdict);
    }
    expect(explained).toBeGreaterThan(CASES / 4);
  });
});
