import { describe, expect, it } from "vitest";
import { buildCorpus } from "../../src/training/corpus.js";
import { CATEGORY_INDEX, makeLabels, type Example } from "../../src/training/datasets/example.js";
import { WORD_PRIOR_SLICE, wordPriorRows } from "../../src/training/word-prior-rows.js";

const row = (text: string, dataset: string, hate: 0 | 1): Example => ({ text, dataset, slice: "posts", labels: makeLabels({ hate, violence: 0 }, "unknown") });
const { hate, violence, sexual, hate_threatening: hateThreatening } = CATEGORY_INDEX;

describe("wordPriorRows (a probe, off by default)", () => {
  // A hate set where one row in four is hate: "vermin" is in three hate rows of four, "blood" in
  // one of four, "the" in every row (no likelier in hate than the set's own rate).
  const examples: Example[] = [
    row("the vermin again", "forum", 1),
    row("the vermin and blood", "forum", 1),
    row("the vermin pest", "forum", 1),
    row("the vermin control guide", "forum", 0),
    row("the blood drive", "forum", 0),
    row("the blood test", "forum", 0),
    row("the blood bank", "forum", 0),
    ...Array.from({ length: 5 }, (_, i) => row(`the weather today ${i}`, "forum", 0)),
    row("blood blood the", "other", 0),
  ];

  it("labels each frequent word by its dataset's rows: positive only where most are and the word doubles the rate", () => {
    const out = wordPriorRows(examples, { perDataset: 10, minRows: 4, weight: 0.5 });
    const of = (dataset: string, text: string) => out.find((e) => e.dataset === dataset && e.text === text);
    expect(of("forum", "vermin")!.labels[hate]).toBe(1);
    expect(of("forum", "blood")!.labels[hate]).toBe(0);
    expect(of("forum", "the")!.labels[hate]).toBe(0); // in more negative rows than positive
    // Categories the source left unknown stay unknown; violence, a known 0 everywhere, is 0.
    expect(of("forum", "vermin")!.labels[sexual]).toBe(-1);
    expect(of("forum", "vermin")!.labels[violence]).toBe(0);
    // A negative parent makes its sub-categories negative, as makeLabels does.
    expect(of("forum", "the")!.labels[hateThreatening]).toBe(0);
    // Too few rows: no text ("pest" is in one); the other set's one row gives none.
    expect(of("forum", "pest")).toBeUndefined();
    expect(out.some((e) => e.dataset === "other")).toBe(false);
    expect(out.every((e) => e.slice === WORD_PRIOR_SLICE && e.trainingOnly && e.weight === 0.5)).toBe(true);
    // Most rows first (ties by text), at most perDataset.
    expect(wordPriorRows(examples, { perDataset: 4, minRows: 4, weight: 1 }).map((e) => e.text)).toEqual(["the", "today", "weather", "blood"]);
  });

  it("leaves a word of a set of mostly positives unknown, unless asked for the first try's negatives", () => {
    // Three crisis posts of four are positive: "the" is in all four, as likely in harm as the set.
    const crisis = [row("the pain again", "crisis", 1), row("the pain now", "crisis", 1), row("the pain stays", "crisis", 1), row("the sun", "crisis", 0)];
    const the = (averageNegatives: boolean) => wordPriorRows(crisis, { perDataset: 10, minRows: 3, weight: 1, averageNegatives }).find((e) => e.text === "the");
    expect(the(false)?.labels[hate]).toBe(-1);
    expect(the(true)?.labels[hate]).toBe(0);
  });

  it("adds rows that do not count toward their dataset's cap, so its own rows keep their weight", () => {
    const added = wordPriorRows(examples, { perDataset: 10, minRows: 4, weight: 0.5 });
    const corpus = (rows: Example[]) => buildCorpus(rows, { hashing: { buckets: 1 << 12, minN: 3, maxN: 4 }, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 12 });
    const plain = corpus(examples);
    const withWords = corpus([...examples, ...added]);
    expect(withWords.rows).toBe(plain.rows + added.length);
    expect(Array.from(withWords.weight.subarray(0, plain.rows))).toEqual(Array.from(plain.weight));
    expect(withWords.weight[plain.rows]).toBeCloseTo(0.5);
  });
});
