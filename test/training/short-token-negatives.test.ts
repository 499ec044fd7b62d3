import { describe, expect, it } from "vitest";
import { makeLabels, type Example } from "../../src/training/datasets/example.js";
import { SHORT_TOKEN_SLICE, shortTokenNegatives } from "../../src/training/short-token-negatives.js";

const row = (text: string, dataset: string, positive: boolean): Example => ({
  text, dataset, slice: "posts", labels: makeLabels(positive ? { harassment: 1 } : { harassment: 0, hate: 0 }, "unknown"),
});

describe("shortTokenNegatives (a probe, off by default)", () => {
  it("takes the short words of rows no source calls harmful, most frequent first, in their row's dataset", () => {
    const examples = [
      row("thank u so much, see u at 5!", "chat", false),
      row("u r an idiot", "chat", true), // a harmful row gives nothing
      row("ok so u know", "chat", false),
      row("plan b it is", "other", false),
    ];
    const out = shortTokenNegatives(examples, { perDataset: 3, maxLength: 2 });
    expect(out.map((e) => `${e.dataset}:${e.text}`)).toEqual(["chat:u", "chat:so", "chat:5", "other:b", "other:is", "other:it"]);
    expect(out.every((e) => e.slice === SHORT_TOKEN_SLICE)).toBe(true);
    // The row's labels: what its source said, nothing more (sexual stays unknown).
    expect(Array.from(out[0]!.labels)).toEqual(Array.from(examples[0]!.labels));
    expect(out.some((e) => e.text === "r" || e.text === "an")).toBe(false);
    // Longer words with a longer bound (train.ts --short-token-max-length), still only benign rows'.
    const words = shortTokenNegatives(examples, { perDataset: 20, maxLength: 5 }).map((e) => e.text);
    expect(words).toContain("thank");
    expect(words).not.toContain("idiot");
  });
});
