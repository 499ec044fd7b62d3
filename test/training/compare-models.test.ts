import { describe, expect, it } from "vitest";
import { BENIGN_SURROUNDINGS, COMPARISON_SENTENCES, padded } from "../../src/training/comparison-sentences.js";
import { compareFlags } from "../../src/training/model-comparison.js";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import type { TextClassifier } from "../../src/classifiers/classifier.js";

/** A classifier that scores every category `score` and flags it when the score is over 0.5 (no rules). */
const constant = (score: number): TextClassifier => ({
  id: `constant-${score}`,
  classify: () => ({ categories: Object.fromEntries(CATEGORY_IDS.map((c) => [c, { score, flagged: score > 0.5 }])), explanations: {} }),
});

describe("comparing two models' flags on the comparison sentences", () => {
  const silent = constant(0.01);
  const loud = constant(0.99);
  const harmful = COMPARISON_SENTENCES.filter((s) => s.harmful).length;
  const benign = COMPARISON_SENTENCES.length - harmful;

  it("holds harmful and benign sentences of several kinds each", () => {
    expect(harmful).toBeGreaterThanOrEqual(100);
    expect(benign).toBeGreaterThanOrEqual(100);
    expect(new Set(COMPARISON_SENTENCES.map((s) => s.group)).size).toBeGreaterThanOrEqual(20);
    expect(new Set(COMPARISON_SENTENCES.map((s) => s.text)).size).toBe(COMPARISON_SENTENCES.length);
  });

  it("counts each side's flags and names every sentence whose flags differ, by kind", () => {
    const louder = compareFlags(silent, loud, COMPARISON_SENTENCES);
    expect(louder.flagged).toEqual({ before: { harmful: 0, benign: 0 }, after: { harmful, benign } });
    expect(louder.changes.filter((c) => c.kind === "new catch")).toHaveLength(harmful);
    expect(louder.changes.filter((c) => c.kind === "new false positive")).toHaveLength(benign);
    const quieter = compareFlags(loud, silent, COMPARISON_SENTENCES);
    expect(quieter.changes.filter((c) => c.kind === "new miss")).toHaveLength(harmful);
    expect(quieter.changes.filter((c) => c.kind === "fixed false positive")).toHaveLength(benign);
    expect(quieter.changes[0]!.categories[0]).toMatchObject({ before: { flagged: true }, after: { flagged: false } });
    // The same model: no change at all.
    expect(compareFlags(loud, loud, COMPARISON_SENTENCES).changes).toEqual([]);
  });

  it("counts the sentences flagged alone and inside ordinary prose", () => {
    // A classifier that flags short texts only: every harmful sentence alone, none of them padded.
    const shortOnly: TextClassifier = { id: "short-only", classify: (text) => constant(text.length < 300 ? 0.99 : 0.01).classify(text) };
    const shortAgainstLoud = compareFlags(shortOnly, loud, COMPARISON_SENTENCES);
    expect(shortAgainstLoud.flagged.before).toEqual({ harmful, benign });
    expect(shortAgainstLoud.flaggedInProse).toEqual({ before: { harmful: 0, benign: 0 }, after: { harmful, benign } });
    // The sentence sits in the middle, and the prose around it is longer than one 480-character window.
    expect(padded("X").indexOf("X")).toBe(BENIGN_SURROUNDINGS.before.length);
    expect(BENIGN_SURROUNDINGS.before.length + BENIGN_SURROUNDINGS.after.length).toBeGreaterThan(960);
  });
});
