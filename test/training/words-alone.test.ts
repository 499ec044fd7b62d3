import { describe, expect, it } from "vitest";
import type { TextClassifier, Verdict } from "../../src/classifiers/classifier.js";
import { makeLabels, type Example } from "../../src/training/datasets/example.js";
import { commonBenignWords, wordsFlaggedAlone } from "../../src/training/words-alone.js";

const row = (text: string, spec: Parameters<typeof makeLabels>[0], base: "benign" | "unknown" = "unknown"): Example => ({ text, dataset: "d", slice: "rows", labels: makeLabels(spec, base) });

describe("common words flagged alone (words-alone.ts)", () => {
  it("counts the words of texts with no positive label, most frequent first, three letters or more", () => {
    const words = commonBenignWords([
      row("Draw blood at the clinic; the clinic opens at nine", {}, "benign"),
      row("The clinic is near the blood bank", { harassment: 0 }),
      row("blood blood blood everywhere, kill them", { violence: 1 }),
    ], 3);
    expect(words).toEqual(["the", "clinic", "blood"]);
  });

  it("classifies each word alone and counts the flags per category", () => {
    // A classifier that flags "blood" for violence and "die" for self_harm and violence.
    const flags: Record<string, string[]> = { blood: ["violence"], die: ["self_harm", "violence"] };
    const classifier: TextClassifier = {
      classify: (text: string): Verdict => ({
        categories: Object.fromEntries(["violence", "self_harm", "hate"].map((c) => [c, { score: flags[text]?.includes(c) ? 0.9 : 0.1, flagged: flags[text]?.includes(c) ?? false }])),
        explanations: {},
      }),
    } as unknown as TextClassifier;
    const result = wordsFlaggedAlone(classifier, ["the", "blood", "clinic", "die"]);
    // Categories in CATEGORY_IDS order.
    expect(result.flagged).toEqual([{ word: "blood", categories: ["violence"] }, { word: "die", categories: ["self_harm", "violence"] }]);
    expect(result.byCategory).toEqual({ violence: 2, self_harm: 1 });
  });
});
