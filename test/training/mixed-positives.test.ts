import { describe, expect, it } from "vitest";
import { makeLabels, type Example } from "../../src/training/datasets/example.js";
import { MIXED_SLICE, mixedPositives, withoutMixed } from "../../src/training/mixed-positives.js";
import { featurize } from "../../src/classifiers/model/features.js";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { buildCorpus } from "../../src/training/corpus.js";
import { trainMlp } from "../../src/training/train-mlp.js";

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
    // No positive shorter than minPositive gets a companion.
    expect(mixedPositives(examples, { ...options, minPositive: 47 })).toHaveLength(1);
    expect(mixedPositives(examples, { ...options, minPositive: 48 })).toEqual([]);
    // Companions only from the datasets named.
    expect(mixedPositives(examples, { ...options, companionDatasets: new Set(["queries"]) })).toHaveLength(1);
    expect(mixedPositives(examples, { ...options, companionDatasets: new Set(["abuse"]) })).toEqual([]);
  });

  it("with benignPairs, adds as many pairs of two benign texts, negative for everything both are, at the given weight", () => {
    const out = mixedPositives(examples, { ...options, benignPairs: true, weight: 0.5 });
    const pairs = out.filter((e) => !e.labels.includes(1));
    expect(pairs).toHaveLength(1);
    expect(pairs[0]!.dataset).toBe("queries");
    expect(Array.from(pairs[0]!.labels).every((l) => l === 0)).toBe(true);
    expect(out.every((e) => e.weight === 0.5 && e.trainingOnly)).toBe(true);
  });

  it("with frozenCompanions, a mixed row does not train the rows only its companion holds", () => {
    const hashing = { buckets: 1 << 12, minN: 3, maxN: 5 };
    const mixed = mixedPositives(examples, { ...options, frozenCompanions: true }).filter((e) => e.labels.includes(1));
    expect(mixed[0]!.frozenCompanion?.harmful).toBe("you are a worthless idiot and everyone knows it");
    const corpus = buildCorpus([...examples.slice(0, 2), ...mixed], { hashing, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 100000 });
    const held = corpus.frozen?.get(corpus.rows - 1);
    const bucketsOf = (t: string) => new Set(featurize(normalizeForMatching(t), hashing));
    const companion = bucketsOf(mixed[0]!.frozenCompanion!.benign), harmful = bucketsOf(mixed[0]!.frozenCompanion!.harmful);
    expect([...held!].sort()).toEqual([...companion].filter((b) => !harmful.has(b)).sort());
    // Trained on the mixed row alone: the companion-only rows keep their start, the harm's move.
    const rows = Uint32Array.of(corpus.rows - 1);
    const trained = trainMlp(corpus, rows, hashing.buckets, { heads: [0], seed: 3, epochs: 1, wasm: false });
    const start = trainMlp(corpus, new Uint32Array(0), hashing.buckets, { heads: [0], seed: 3, epochs: 1, wasm: false });
    // The table is quantised with a scale of its own largest value: compare dequantised, to one step.
    const [s1, s0] = [trained.params["embScale"]!, start.params["embScale"]!];
    const moved = (b: number) => Array.from({ length: 32 }, (_, d) => b * 32 + d).some((i) => Math.abs(trained.tensors["emb"]![i]! * s1 - start.tensors["emb"]![i]! * s0) > 1.01 * Math.max(s0, s1));
    expect([...held!].some(moved)).toBe(false);
    expect([...harmful].some(moved)).toBe(true);
  });

  it("with frozenAll, a mixed row trains no feature row, only the layers above the bag", () => {
    const hashing = { buckets: 1 << 12, minN: 3, maxN: 5 };
    const mixed = mixedPositives(examples, { ...options, frozenAll: true }).filter((e) => e.labels.includes(1));
    const corpus = buildCorpus([...examples.slice(0, 2), ...mixed], { hashing, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 100000 });
    const held = corpus.frozen?.get(corpus.rows - 1);
    const last = corpus.rows - 1;
    const rowBuckets = corpus.feats.subarray(corpus.offsets[last]!, corpus.offsets[last + 1]!);
    expect([...rowBuckets].every((b) => held!.has(b))).toBe(true);
    const rows = Uint32Array.of(last);
    const trained = trainMlp(corpus, rows, hashing.buckets, { heads: [0], seed: 3, epochs: 1, wasm: false });
    const start = trainMlp(corpus, new Uint32Array(0), hashing.buckets, { heads: [0], seed: 3, epochs: 1, wasm: false });
    expect(Array.from(trained.tensors["emb"]!)).toEqual(Array.from(start.tensors["emb"]!));
    expect(Array.from(trained.tensors["w1"]!)).not.toEqual(Array.from(start.tensors["w1"]!));
  });

  it("withoutMixed leaves out the mixed rows' windows and keeps the datasets' own", () => {
    const hashing = { buckets: 1 << 12, minN: 3, maxN: 5 };
    const all = [...examples, ...mixedPositives(examples, options)];
    const corpus = buildCorpus(all, { hashing, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 100000 });
    const rows = Uint32Array.from({ length: corpus.rows }, (_, r) => r);
    const kept = withoutMixed(corpus, all, rows);
    expect(kept.length).toBe(corpus.rows - 1);
    expect([...kept].every((r) => all[corpus.example[r]!]!.slice !== MIXED_SLICE)).toBe(true);
    expect(rows.filter((r) => all[corpus.example[r]!]!.slice === MIXED_SLICE)).toHaveLength(1);
  });
});
