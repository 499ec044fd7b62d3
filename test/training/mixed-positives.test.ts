import { describe, expect, it } from "vitest";
import { makeLabels, type Example } from "../../src/training/datasets/example.js";
import { MIXED_SLICE, mixedPositives } from "../../src/training/mixed-positives.js";

const row = (dataset: string, text: string, spec: Parameters<typeof makeLabels>[0], base: "benign" | "unknown" = "unknown"): Example => ({ text, dataset, slice: "rows", labels: makeLabels(spec, base) });

const examples: Example[] = [
  row("abuse", "you are a worthless idiot and everyone knows it", { harassment: 1 }),
  row("abuse", "have a lovely day, friend", { harassment: 0 }),
  row("abuse", `${"a very long insulting rant ".repeat(12)}you idiot`, { harassment: 1 }), // too long to pair
  row("queries", "what time does the bank open on saturday mornings", {}, "benign"),
  row("queries", "how do I change the pin of my debit card please", {}, "benign"),
  row("heldout-set", "a neutral post from a dataset held out of training folds", {}, "benign"),
];

describe("mixedPositives (short harm beside a benign text)", () => {
  const options = { perDataset: 5, seed: 7, heldOut: new Set(["heldout-set"]), calibrationShare: 0 };

  it("pairs each short positive with a benign text of a dataset not held out, in the positive's dataset, labelled as the positive", () => {
    const out = mixedPositives(examples, options);
    const positives = out.filter((e) => e.labels.includes(1));
    expect(positives).toHaveLength(1);
    const mixed = positives[0]!;
    expect(mixed.dataset).toBe("abuse");
    expect(mixed.slice).toBe(MIXED_SLICE);
    expect(mixed.trainingOnly).toBe(true);
    expect(mixed.text).toContain("you are a worthless idiot and everyone knows it");
    expect(mixed.text.length).toBeLessThanOrEqual(470);
    // The companion is one of the benign queries, never the held-out dataset's post nor the positive's own negatives.
    expect(/bank open|debit card/.test(mixed.text)).toBe(true);
    expect(mixed.text).not.toContain("held out");
    expect(Array.from(mixed.labels)).toEqual(Array.from(examples[0]!.labels));
  });

  it("is reproducible by its seed, takes at most perDataset positives, and leaves calibration texts alone", () => {
    expect(mixedPositives(examples, options).map((e) => e.text)).toEqual(mixedPositives(examples, options).map((e) => e.text));
    expect(mixedPositives(examples, { ...options, perDataset: 0 })).toEqual([]);
    // Every text in the calibration split: nothing is made from them.
    expect(mixedPositives(examples, { ...options, calibrationShare: 1 })).toEqual([]);
  });

  it("with benignPairs, adds as many pairs of two benign texts, negative for everything both are, at the given weight", () => {
    const out = mixedPositives(examples, { ...options, benignPairs: true, weight: 0.5 });
    const pairs = out.filter((e) => !e.labels.includes(1));
    expect(pairs).toHaveLength(1);
    expect(pairs[0]!.dataset).toBe("queries");
    expect(Array.from(pairs[0]!.labels).every((l) => l === 0)).toBe(true);
    expect(out.every((e) => e.weight === 0.5 && e.trainingOnly)).toBe(true);
  });
});
