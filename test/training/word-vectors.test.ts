import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import type { Verdict } from "../../src/classifiers/classifier.js";
import { createEngine } from "../../src/classifiers/engine/index.js";
import { decodeModel, encodeModel } from "../../src/classifiers/model/model-file.js";
import { createMlpScorer } from "../../src/classifiers/model/scorers.js";
import { featureRows, featuresOfTokens, featurize, tokenFeatures, tokenFeaturesOf, tokenize } from "../../src/classifiers/model/features.js";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { buildCorpus } from "../../src/training/corpus.js";
import { example, makeLabels } from "../../src/training/datasets/example.js";
import { createPrng } from "../../src/training/prng.js";
import { trainMlp } from "../../src/training/train-mlp.js";
import { loadWordVectors, principalComponents, symmetricEigen } from "../../src/training/word-vectors.js";

const vocabulary = ["idiot", "moron", "kil", "table"];
const spec = { buckets: 1 << 12, minN: 3, maxN: 5, vocabulary };

describe("vocabulary rows in the hashed features", () => {
  it("a vocabulary word adds its own row after the buckets; other words and near spellings add none", () => {
    const rowsOf = (text: string): number[] => [...featurize(text, spec)].filter((b) => b >= spec.buckets).sort((a, b) => a - b);
    expect(rowsOf("you idiot")).toEqual([spec.buckets]);
    expect(rowsOf("a moron at the table")).toEqual([spec.buckets + 1, spec.buckets + 3]);
    // Normalised text squeezes repeated letters, so "kill" is looked up as the vocabulary's "kil".
    expect(rowsOf(normalizeForMatching("I will kill"))).toEqual([spec.buckets + 2]);
    expect(rowsOf("idiots and morons")).toEqual([]);
    expect(featureRows(spec)).toBe(spec.buckets + vocabulary.length);
    expect(featureRows({ buckets: 64, minN: 3, maxN: 5 })).toBe(64);
  });

  it("identity words hashed as a placeholder get no vocabulary row even when listed", () => {
    const withGroup = { ...spec, identityWords: "placeholder" as const, vocabulary: ["muslims", "idiot"] };
    expect([...featurize("muslims are idiot", withGroup)].filter((b) => b >= withGroup.buckets)).toEqual([withGroup.buckets + 1]);
  });

  it("per-token features, window features and explanations agree with featurize()", () => {
    const text = normalizeForMatching("You are an idiot and a moron, an idiot at the table, I will kill you");
    const tokens = tokenize(text);
    const tf = tokenFeaturesOf(text, tokens, spec);
    const window = featuresOfTokens(tf, spec.buckets, 0, tokens.length);
    expect([...window].sort()).toEqual([...featurize(text, spec)].sort());
    const rand = createPrng(3);
    const heads = 2, dim = 8, hidden = 5;
    const rows = featureRows(spec);
    const scorer = createMlpScorer({
      buckets: spec.buckets, heads, dim, hidden, embScale: 0.01,
      emb: Int8Array.from({ length: rows * dim }, () => Math.round((rand() * 2 - 1) * 100)),
      w1: Float32Array.from({ length: hidden * dim }, () => rand() * 2 - 1), b1: new Float32Array(hidden).fill(0.1),
      w2: Float32Array.from({ length: heads * hidden }, () => rand() * 2 - 1), b2: new Float32Array(heads),
    });
    scorer.logits(window, new Float64Array(heads));
    const explain = scorer.explainer(window, tf, 0, tokens.length);
    tokens.forEach((t, i) => {
      const subset: number[] = [];
      tokenFeatures(text, t, spec, (b) => subset.push(b));
      expect(explain(0)[i]).toBeCloseTo(scorer.attribution(window, subset, 0), 12);
    });
  });
});

describe("a model file with vocabulary rows", () => {
  it("keeps its vocabulary through the file, and the engine scores and explains by a word's own row", () => {
    // Every hashed bucket is zero; only the vocabulary word "grumble" has a row, which drives the
    // harassment head: so the score can come from nothing but the vocabulary row.
    const heads = CATEGORY_IDS.filter((c) => c !== "sexual_minors");
    const dim = 2, hidden = 1, buckets = 1 << 10;
    const hashing = { buckets, minN: 3, maxN: 5, vocabulary: ["calm", "grumble"] };
    const emb = new Int8Array(featureRows(hashing) * dim);
    emb[(buckets + 1) * dim] = 100;
    const w2 = new Float32Array(heads.length);
    w2[heads.indexOf("harassment")] = 1;
    const file = encodeModel({
      format: "moderation-text-model", version: 1, id: "text-test-vocabulary", family: "embedding-mlp", heads, hashing,
      window: { size: 480, stride: 240 }, calibration: Object.fromEntries(heads.map((c) => [c, { a: 1, b: -6 }])),
      thresholds: Object.fromEntries(CATEGORY_IDS.map((c) => [c, 0.5])), lexicon: { sexual: 0.7, graphicViolence: 0.7 },
      params: { dim, hidden, embScale: 1 }, training: {},
    }, { emb, w1: Float32Array.from([1, 0]), b1: new Float32Array(hidden), w2, b2: new Float32Array(heads.length) });
    const model = decodeModel(file);
    expect(model.header.hashing.vocabulary).toEqual(["calm", "grumble"]);
    const engine = createEngine(model);
    const scored = engine.classify("they grumble about the weather") as Verdict;
    expect(scored.categories.harassment!.score).toBeGreaterThan(0.99);
    expect(scored.explanations.harassment?.map((s) => s.text)).toEqual(["grumble"]);
    const other = engine.classify("they mumble about the weather") as Verdict;
    expect(other.categories.harassment!.score).toBeLessThan(0.01);
  });
});

describe("word vectors for the vocabulary rows", () => {
  it("symmetricEigen recovers a known decomposition", () => {
    // Q diag(5, 2, 0.5) Q^T with Q a rotation: eigenvalues 5, 2, 0.5 and A v = lambda v.
    const c = Math.cos(0.7), s = Math.sin(0.7);
    const q = [[c, -s, 0], [s, c, 0], [0, 0, 1]];
    const l = [5, 2, 0.5];
    const a = [0, 1, 2].map((i) => Float64Array.from([0, 1, 2], (j) => q[i]![0]! * l[0]! * q[j]![0]! + q[i]![1]! * l[1]! * q[j]![1]! + q[i]![2]! * l[2]! * q[j]![2]!));
    const { values, vectors } = symmetricEigen(a);
    expect([...values].sort((x, y) => y - x).map((v) => Number(v.toFixed(9)))).toEqual([5, 2, 0.5]);
    values.forEach((lambda, k) => {
      for (let i = 0; i < 3; i++) {
        let av = 0;
        for (let j = 0; j < 3; j++) av += a[i]![j]! * vectors[j]![k]!;
        expect(av).toBeCloseTo(lambda * vectors[i]![k]!, 9);
      }
    });
  });

  it("principal components keep the direction of largest spread", () => {
    const rand = createPrng(11);
    // Points along (1, 1, 0) with small noise: one axis holds nearly all the variance.
    const rows = Array.from({ length: 400 }, () => { const t = rand() * 10 - 5; return [t + (rand() - 0.5) * 0.1, t + (rand() - 0.5) * 0.1, (rand() - 0.5) * 0.1]; });
    const { projected, explained } = principalComponents(rows, 3, 1);
    expect(explained).toBeGreaterThan(0.99);
    // The projection is the centred coordinate along the axis, up to noise and sign.
    const mean = [0, 1].map((d) => rows.reduce((s, r) => s + r[d]!, 0) / rows.length);
    rows.forEach((r, i) => expect(Math.abs(projected[i]!)).toBeCloseTo(Math.abs(r[0]! - mean[0]! + r[1]! - mean[1]!) / Math.sqrt(2), 1));
  });

  it("reads the wink JSON: normalised one-token words, first spelling of a form wins, no identity words, scaled to the rms", () => {
    const dir = mkdtempSync(join(tmpdir(), "word-vectors-"));
    const path = join(dir, "vectors.json");
    const words = ["the", "kill", "kil", "muslims", "co-op", "idiot", "moron"];
    const vectors = Object.fromEntries(words.map((w, i) => [w, [i, -i, i * 0.5, 1 - i, 0.25 * i * i, 0, i, 4 - i, 0.5 * i, -1, 0, 0]]));
    writeFileSync(path, JSON.stringify({ dimensions: 10, words, vectors }));
    const out = loadWordVectors(path, { size: 4, dim: 3, rms: 0.1 });
    expect(out.vocabulary).toEqual(["the", "kil", "idiot", "moron"]);
    expect(out.vectors.length).toBe(12);
    let sq = 0;
    for (const x of out.vectors) sq += x * x;
    expect(Math.sqrt(sq / out.vectors.length)).toBeCloseTo(0.1, 6);
  });

  it("frozen vocabulary rows keep their pretrained values through training; the rest learn", () => {
    const texts = ["you idiot", "you moron", "the table is set", "set the table"];
    const examples = Array.from({ length: 200 }, (_, i) => example("toy", "x", `${texts[i % 4]} ${i}`, makeLabels(i % 4 < 2 ? { harassment: 1 } : {}, i % 4 < 2 ? "unknown" : "benign")));
    const corpus = buildCorpus(examples, { hashing: spec, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 100000 });
    const rows = Uint32Array.from({ length: corpus.rows }, (_, i) => i);
    const dim = 8;
    const rand = createPrng(5);
    const vectors = Float32Array.from({ length: vocabulary.length * dim }, () => (rand() * 2 - 1) * 0.1);
    const before = trainMlp(corpus, rows, featureRows(spec), { heads: [0], seed: 2, epochs: 0, dim, hidden: 4, wordRows: { first: spec.buckets, vectors, frozen: true } });
    const frozen = trainMlp(corpus, rows, featureRows(spec), { heads: [0], seed: 2, epochs: 3, dim, hidden: 4, wordRows: { first: spec.buckets, vectors, frozen: true } });
    const free = trainMlp(corpus, rows, featureRows(spec), { heads: [0], seed: 2, epochs: 3, dim, hidden: 4, wordRows: { first: spec.buckets, vectors, frozen: false } });
    const row = (m: typeof before, r: number): number[] => Array.from((m.tensors["emb"] as Int8Array).subarray(r * dim, (r + 1) * dim), (q) => q * m.params["embScale"]!);
    const idiotRow = spec.buckets;
    for (let d = 0; d < dim; d++) expect(row(before, idiotRow)[d]).toBeCloseTo(vectors[d]!, 2);
    // Quantisation scales differ between models, so compare values, not bytes.
    row(frozen, idiotRow).forEach((v, d) => expect(Math.abs(v - vectors[d]!)).toBeLessThan(frozen.params["embScale"]! * 0.51 + 1e-9));
    expect(row(free, idiotRow).some((v, d) => Math.abs(v - vectors[d]!) > 0.01)).toBe(true);
    const youBucket = tokenFeaturesOf("you", tokenize("you"), spec).feats[0]!;
    expect(row(frozen, youBucket).some((v, d) => Math.abs(v - row(before, youBucket)[d]!) > 0.01)).toBe(true);
  });
});
