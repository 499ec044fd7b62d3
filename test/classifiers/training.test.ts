import { describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import { makeLabels, CATEGORY_INDEX, type Example } from "../../src/training/datasets/example.js";
import { parseDelimited, parsePythonStringList } from "../../src/training/datasets/files.js";
import { chunkProse } from "../../src/training/datasets/longform.js";
import { buildCorpus } from "../../src/training/corpus.js";
import { averagePrecision, chooseThreshold, fitPlatt } from "../../src/training/metrics.js";
import { trainLinear } from "../../src/training/train-linear.js";
import { trainMlp } from "../../src/training/train-mlp.js";

describe("label mapping helpers", () => {
  it("propagates sub-category positives to parents and parent negatives to children", () => {
    const l = makeLabels({ hate_threatening: 1 }, "unknown");
    expect(l[CATEGORY_INDEX.hate]).toBe(1);
    expect(l[CATEGORY_INDEX.sexual]).toBe(-1);
    const n = makeLabels({ self_harm: 0 }, "unknown");
    expect(n[CATEGORY_INDEX.self_harm_intent]).toBe(0);
    expect(makeLabels({}, "benign").every((v) => v === 0)).toBe(true);
  });

  it("parses quoted CSV, TSV and python string lists", () => {
    const rows = parseDelimited('a,b\n"x, ""y""",2\n"multi\nline",3\n');
    expect(rows).toEqual([{ a: 'x, "y"', b: "2" }, { a: "multi\nline", b: "3" }]);
    expect(parseDelimited("p\tq\n1\t2\n", "\t")).toEqual([{ p: "1", q: "2" }]);
    expect(parsePythonStringList(`['it\\'s', "a \\"b\\"", 'c']`)).toEqual(["it's", 'a "b"', "c"]);
  });

  it("chunks Gutenberg prose inside the START/END markers into bounded chunks", () => {
    const para = "This is a sentence of prose that goes on for a while. ".repeat(4);
    const book = `Header junk\n*** START OF THE PROJECT GUTENBERG EBOOK X ***\n\n${para}\n\n${para}\n\n${para}\n\n*** END OF THE PROJECT GUTENBERG EBOOK X ***\nLicence junk`;
    const chunks = chunkProse(book, 480);
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(480);
      expect(c.text).not.toMatch(/junk|GUTENBERG/);
    }
  });
});

describe("metrics", () => {
  it("average precision is 1 for a perfect ranking and lower for a reversed one", () => {
    expect(averagePrecision([0.9, 0.8, 0.1], [1, 1, 0])).toBe(1);
    expect(averagePrecision([0.1, 0.2, 0.9], [1, 1, 0])).toBeLessThan(0.6);
  });

  it("Platt scaling keeps the ranking and the threshold separates the classes", () => {
    const x = [-3, -2, -1, 0.5, 1, 2, 3, 4];
    const y = [0, 0, 0, 0, 1, 1, 1, 1];
    const p = fitPlatt(x, y);
    expect(p.a).toBeGreaterThan(0);
    const s = x.map((v) => 1 / (1 + Math.exp(-(p.a * v + p.b))));
    const t = chooseThreshold(s, y);
    expect(t.precision).toBe(1);
    expect(t.recall).toBe(1);
  });

  it("on a flat F1 top, takes the highest bar within the allowance instead of the exact best", () => {
    // F1 by bar: 0.6 -> 0.800, 0.4 -> 0.833, 0.2 -> 0.857 (the best).
    const s = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1];
    const y = [1, 1, 1, 1, 0, 1, 0, 1, 0];
    expect(chooseThreshold(s, y, undefined, 0.05).threshold).toBe(0.2);
    expect(chooseThreshold(s, y, undefined, 0.05, 0.03).threshold).toBe(0.4);
    expect(chooseThreshold(s, y, undefined, 0.05, 0.06).threshold).toBe(0.6);
    // An allowance smaller than every gap keeps the best.
    expect(chooseThreshold(s, y, undefined, 0.05, 0.01).threshold).toBe(0.2);
  });
});

describe("trainers", () => {
  // A toy problem with masked labels: "hate" only labelled on half the rows.
  const examples: Example[] = [];
  for (let i = 0; i < 200; i++) {
    const bad = i % 2 === 0;
    const text = bad ? `you are vile scum number ${i}` : `have a lovely day number ${i}`;
    const labels = makeLabels(i % 4 < 2 ? { harassment: bad ? 1 : 0, hate: 0 } : { harassment: bad ? 1 : 0 }, "unknown");
    examples.push({ text, dataset: "toy", slice: "toy", labels });
  }
  const hashing = { buckets: 1 << 12, minN: 3, maxN: 4 };
  const corpus = buildCorpus(examples, { hashing, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 1000 });
  const rows = Uint32Array.from({ length: corpus.rows }, (_, i) => i);
  const heads = [CATEGORY_IDS.indexOf("harassment")];

  for (const [name, train] of [["linear", trainLinear], ["embedding-mlp", trainMlp]] as const) {
    it(`${name} learns a separable problem and is deterministic given the seed`, () => {
      const a = train(corpus, rows, hashing.buckets, { heads, epochs: 5, seed: 3 });
      const b = train(corpus, rows, hashing.buckets, { heads, epochs: 5, seed: 3 });
      const out = new Float64Array(1);
      const logit = (r: number): number => {
        a.scorer.logits(corpus.feats.subarray(corpus.offsets[r]!, corpus.offsets[r + 1]!), out);
        return out[0]!;
      };
      const s = Array.from(rows, logit);
      const y = Array.from(rows, (r) => corpus.labels[r * CATEGORY_IDS.length + heads[0]!]!);
      expect(averagePrecision(s, y)).toBeGreaterThan(0.95);
      expect(Object.keys(a.tensors)).toEqual(Object.keys(b.tensors));
      for (const k of Object.keys(a.tensors)) expect(Array.from(a.tensors[k]!)).toEqual(Array.from(b.tensors[k]!));
    });
  }
});

describe("corpus weights", () => {
  it("cap every dataset, and CAD's expert-labelled Reddit traffic at its own cap when one is given", () => {
    const set = (dataset: string): Example[] => Array.from({ length: 40 }, (_, i) => ({ text: `${dataset} post number ${i}`, dataset, slice: "s", labels: makeLabels({ harassment: 0 }, "unknown") }));
    const hashing = { buckets: 1 << 10, minN: 3, maxN: 4 };
    const corpus = buildCorpus([...set("hatecheck"), ...set("cad-reddit-abuse")], { hashing, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 10 });
    const total = (name: string): number => Array.from(corpus.weight).reduce((sum, w, r) => sum + (corpus.datasets[corpus.dataset[r]!] === name ? w : 0), 0);
    expect(total("hatecheck")).toBeCloseTo(10, 4);
    expect(total("cad-reddit-abuse")).toBeCloseTo(10, 4);
    const weightOf = (trafficCap: number): number => Array.from(buildCorpus(set("cad-reddit-abuse"), { hashing, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 10, trafficCap }).weight).reduce((a, b) => a + b, 0);
    expect(weightOf(20)).toBeCloseTo(20, 4);
    expect(weightOf(Infinity)).toBeCloseTo(40, 4);
    // A traffic weight counts each of its rows that many times, after the cap; other datasets keep theirs.
    const weighted = buildCorpus([...set("hatecheck"), ...set("cad-reddit-abuse")], { hashing, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 10, trafficCap: 20, trafficWeight: 2 });
    const weightIn = (name: string): number => Array.from(weighted.weight).reduce((sum, w, r) => sum + (weighted.datasets[weighted.dataset[r]!] === name ? w : 0), 0);
    expect(weightIn("cad-reddit-abuse")).toBeCloseTo(40, 4);
    expect(weightIn("hatecheck")).toBeCloseTo(10, 4);
  });
});

describe("held-out 'any harm' figure", () => {
  it("ranks rows by their highest category score: unsafe = any positive, safe = none positive and one known negative", async () => {
    const { readFileSync } = await import("node:fs");
    const { decodeModel } = await import("../../src/classifiers/model/model-file.js");
    const { scoreHeldOut, anyHarmAuprc } = await import("../../src/training/evaluate.js");
    const model = decodeModel(readFileSync(new URL("../../models/text-moderation.bin", import.meta.url)));
    const row = (text: string, spec: Parameters<typeof makeLabels>[0]): Example => ({ dataset: "t", slice: "s", text, labels: makeLabels(spec, "unknown") });
    // Sentences written for this test. The last row labels nothing known: it is left out.
    const rows = [
      row("I will kill you and your whole family tonight", { violence: 1 }),
      row("you are a worthless pathetic idiot", { harassment: 1 }),
      row("What time does the library open on Sunday?", { hate: 0 }),
      row("Thanks, the recipe turned out great.", { violence: 0, harassment: 0 }),
      row("An unlabelled sentence about the weather.", {}),
    ];
    const held = scoreHeldOut(model, rows, "t");
    expect(held.anyHarm?.y).toEqual([1, 1, 0, 0]);
    const [threat, insult, library, recipe] = held.anyHarm!.s as [number, number, number, number];
    expect(Math.min(threat, insult)).toBeGreaterThan(Math.max(library, recipe));
    // Under 10 of a class: no figure rather than a noisy one.
    expect(anyHarmAuprc([held])).toBeUndefined();
    const many = { ...held, anyHarm: { s: [...Array(10).fill(0.9), ...Array(10).fill(0.1)], y: [...Array(10).fill(1), ...Array(10).fill(0)] } };
    expect(anyHarmAuprc([many])?.auprc).toBe(1);
  });
});

describe("in-domain figure for real traffic", () => {
  it("scores only the dataset's calibration-split texts, and counts safe posts flagged", async () => {
    const { readFileSync } = await import("node:fs");
    const { decodeModel } = await import("../../src/classifiers/model/model-file.js");
    const { inDomain } = await import("../../src/training/evaluate.js");
    const model = decodeModel(readFileSync(new URL("../../models/text-moderation.bin", import.meta.url)));
    const row = (dataset: string, text: string, spec: Parameters<typeof makeLabels>[0]): Example => ({ dataset, slice: "s", text, labels: makeLabels(spec, "unknown") });
    // Sentences written for this test; "held" marks the texts the split predicate calls calibration.
    const rows = [
      row("cad-reddit-abuse", "held: you are a worthless pathetic idiot", { harassment: 1, hate: 0 }),
      row("cad-reddit-abuse", "held: thanks, the recipe turned out great", { harassment: 0, hate: 0 }),
      row("cad-reddit-abuse", "trained: what a lovely morning for a walk", { harassment: 0, hate: 0 }),
      row("hatecheck", "held: immigrants are vermin", { hate: 1 }),
    ];
    const figure = inDomain(model, rows, (norm) => norm.startsWith("held"));
    expect(figure?.dataset).toBe("cad-reddit-abuse");
    expect(figure?.categories.harassment?.positives).toBe(1);
    expect(figure?.categories.harassment?.negatives).toBe(1);
    expect(figure?.categories.hate?.positives ?? 0).toBe(0); // the HateCheck row is not CAD's
    expect(figure?.safe).toBe(1);
    expect(figure?.safeFlagged).toBe(0);
    expect(inDomain(model, rows, () => false)).toBeUndefined();
  });
});
