import { describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import type { Verdict } from "../../src/classifiers/classifier.js";
import { createEngine } from "../../src/classifiers/engine/index.js";
import { scorerOf } from "../../src/classifiers/engine/engine.js";
import { createEnsembleScorer, memberHeadWeightsOf } from "../../src/classifiers/model/ensemble-scorer.js";
import { createMlpEnsembleScorer } from "../../src/classifiers/model/mlp-ensemble-scorer.js";
import { featuresOfTokens, tokenFeatures, tokenFeaturesOf, tokenize } from "../../src/classifiers/model/features.js";
import { decodeModel, encodeModel } from "../../src/classifiers/model/model-file.js";
import { createMlpScorer } from "../../src/classifiers/model/scorers.js";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { ensembleOf } from "../../src/training/ensemble.js";
import type { TrainedModel } from "../../src/training/trainer.js";
import { createPrng } from "../../src/training/prng.js";

const spec = { buckets: 1 << 10, minN: 3, maxN: 5 };
const heads = 3, dim = 4, hidden = 5;

/** The heads a model file's networks score (every category but the rule-only sexual_minors). */
const MODEL_HEADS = CATEGORY_IDS.filter((c) => c !== "sexual_minors");

/** One random network as ensembleOf takes it (tensors, params, scorer), over MODEL_HEADS. */
function fileMember(rand: () => number, embScale: number) {
  const tensors = {
    emb: Int8Array.from({ length: spec.buckets * dim }, () => Math.round((rand() * 2 - 1) * 100)),
    w1: Float32Array.from({ length: hidden * dim }, () => rand() * 2 - 1), b1: new Float32Array(hidden).fill(0.2),
    w2: Float32Array.from({ length: MODEL_HEADS.length * hidden }, () => (rand() * 2 - 1) * 3), b2: new Float32Array(MODEL_HEADS.length),
  };
  return { family: "embedding-mlp" as const, tensors, params: { dim, hidden, embScale }, scorer: createMlpScorer({ buckets: spec.buckets, heads: MODEL_HEADS.length, dim, hidden, embScale, ...tensors }) };
}

/** A model file's header for networks over MODEL_HEADS (calibration a=1, b=0: scores are the sigmoid of the logits). */
const fileHeader = (id: string) => ({
  format: "moderation-text-model" as const, version: 1 as const, id, family: "embedding-mlp" as const, heads: MODEL_HEADS, hashing: spec,
  window: { size: 480, stride: 240 }, calibration: Object.fromEntries(MODEL_HEADS.map((c) => [c, { a: 1, b: 0 }])),
  thresholds: Object.fromEntries(CATEGORY_IDS.map((c) => [c, 0.5])), lexicon: { sexual: 0.7, graphicViolence: 0.7 }, training: {},
});

function randomMember(seed: number) {
  const rand = createPrng(seed);
  const f32 = (n: number): Float32Array => Float32Array.from({ length: n }, () => rand() * 2 - 1);
  const weights = {
    emb: Int8Array.from({ length: spec.buckets * dim }, () => Math.round((rand() * 2 - 1) * 100)),
    w1: f32(hidden * dim), b1: f32(hidden), w2: f32(heads * hidden), b2: f32(heads),
  };
  const embScale = 0.01 + rand() * 0.01;
  return { tensors: weights, params: { dim, hidden, embScale }, scorer: createMlpScorer({ buckets: spec.buckets, heads, dim, hidden, embScale, ...weights }) };
}

/** One window of one sentence, and three random members, for both groups below. */
const text = normalizeForMatching("You are a stupid idiot and everyone at the meeting knows it");
const tokens = tokenize(text);
const tf = tokenFeaturesOf(text, tokens, spec);
const window = featuresOfTokens(tf, spec.buckets, 0, tokens.length);
const members = [randomMember(1), randomMember(2), randomMember(3)];

describe("ensemble of scorers", () => {
  const ensemble = createEnsembleScorer(members.map((m) => m.scorer));

  it("scores the mean of its members' logits", () => {
    const out = new Float64Array(heads);
    ensemble.logits(window, out);
    const each = members.map((m) => { const o = new Float64Array(heads); m.scorer.logits(window, o); return o; });
    for (let h = 0; h < heads; h++) expect(out[h]).toBeCloseTo((each[0]![h]! + each[1]![h]! + each[2]![h]!) / 3, 12);
  });

  it("explains by the mean of its members' attributions, batched or per token", () => {
    ensemble.logits(window, new Float64Array(heads));
    const explain = ensemble.explainer(window, tf, 0, tokens.length);
    for (let h = 0; h < heads; h++) {
      tokens.forEach((t, i) => {
        const subset: number[] = [];
        tokenFeatures(text, t, spec, (b) => subset.push(b));
        const mean = members.reduce((s, m) => s + m.scorer.attribution(window, subset, h), 0) / 3;
        expect(explain(h)[i]).toBeCloseTo(mean, 12);
        expect(ensemble.attribution(window, subset, h)).toBeCloseTo(mean, 12);
      });
    }
  });

  it("one member is that member", () => {
    expect(createEnsembleScorer([members[0]!.scorer])).toBe(members[0]!.scorer);
    expect(() => createEnsembleScorer([])).toThrow();
  });

  it("a model file of members loads as the same ensemble in the engine", () => {
    const make = (seed: number) => fileMember(createPrng(seed), seed / 100);
    const parts = [make(1), make(2)];
    const combined = ensembleOf(parts);
    expect(combined.params).toEqual({ dim, hidden, embScale: 0.01, members: 2, "embScale.1": 0.02 });
    const header = fileHeader("text-test-ensemble");
    const engineOf = (m: Pick<TrainedModel, "params" | "tensors">) => createEngine(decodeModel(encodeModel({ ...header, params: m.params }, m.tensors)));
    const sample = "the weather is fine today and the meeting went well";
    const score = (e: ReturnType<typeof engineOf>, c: string): number => (e.classify(sample) as Verdict).categories[c as "hate"]!.score;
    const [a, b, both] = [engineOf(parts[0]!), engineOf(parts[1]!), engineOf(combined)];
    const logit = (p: number): number => Math.log(p / (1 - p));
    // Calibration a=1, b=0: the ensemble's score is the sigmoid of the mean of the members' logits (scores are rounded, hence 4 places).
    for (const c of MODEL_HEADS.slice(0, 4)) expect(logit(score(both, c))).toBeCloseTo((logit(score(a, c)) + logit(score(b, c))) / 2, 4);
  });

  it("a member whose scale equals member 0's is stored without its own and read with member 0's", () => {
    const rand = createPrng(9);
    const combined = ensembleOf([fileMember(rand, 0.05), fileMember(rand, 0.05)]);
    expect(combined.params).toEqual({ dim, hidden, embScale: 0.05, members: 2 });
    const header = fileHeader("text-test-ensemble-same-scale");
    const fromFile = scorerOf(decodeModel(encodeModel({ ...header, params: combined.params }, combined.tensors)));
    const text = normalizeForMatching("the weather is fine today and the meeting went well");
    const window = featuresOfTokens(tokenFeaturesOf(text, tokenize(text), spec), spec.buckets, 0, tokenize(text).length);
    const [x, y] = [new Float64Array(MODEL_HEADS.length), new Float64Array(MODEL_HEADS.length)];
    fromFile.logits(window, x);
    combined.scorer.logits(window, y);
    for (let h = 0; h < MODEL_HEADS.length; h++) expect(x[h]).toBeCloseTo(y[h]!, 12);
  });
});

describe("members' embedding rows side by side (mlp-ensemble-scorer.ts)", () => {
  const memberOf = (seed: number, width: number, hidden = 5) => {
    const rand = createPrng(seed);
    const f32 = (n: number): Float32Array => Float32Array.from({ length: n }, () => rand() * 2 - 1);
    return {
      buckets: spec.buckets, heads, dim: width, hidden, embScale: 0.01 + rand() * 0.01,
      emb: Int8Array.from({ length: spec.buckets * width }, () => Math.round((rand() * 2 - 1) * 127)),
      w1: f32(hidden * width), b1: f32(hidden), w2: f32(heads * hidden), b2: f32(heads),
    };
  };
  const text = normalizeForMatching("You are a stupid idiot and everyone at the meeting knows it, lol");
  const tokens = tokenize(text);
  const tf = tokenFeaturesOf(text, tokens, spec);
  const rand = createPrng(77);
  const windows = [
    featuresOfTokens(tf, spec.buckets, 0, tokens.length),
    featuresOfTokens(tf, spec.buckets, 2, 5),
    new Uint32Array(0),
    // Many rows: past the packed summer's unpacking interval (128 rows) and the SIMD one's (256).
    Uint32Array.from({ length: 300 }, () => Math.floor(rand() * spec.buckets)),
  ];

  // dim 4 sums byte by byte; dim 32 (the shipped shape) side by side in WebAssembly memory with
  // SIMD, against the plain members' tables summed a 32-bit word at a time; a hidden layer of a
  // multiple of 8 (the shipped 48) is computed with SIMD too (wasm-dense-relu.ts).
  it.each([[4, 2, 5], [4, 3, 5], [32, 4, 5], [32, 4, 48], [4, 2, 16]])("scores dim %i, %i members, hidden %i to the bit as the plain ensemble", (width, n, hidden) => {
    const weights = Array.from({ length: n }, (_, k) => memberOf(10 + k, width, hidden));
    const fused = createMlpEnsembleScorer(weights);
    const plain = createEnsembleScorer(weights.map(createMlpScorer));
    for (const w of windows) {
      const [a, b] = [new Float64Array(heads), new Float64Array(heads)];
      fused.logits(w, a);
      plain.logits(w, b);
      expect(Array.from(a)).toEqual(Array.from(b));
    }
    const [w] = windows as [Uint32Array];
    expect(Array.from(fused.explainer(w, tf, 0, tokens.length)(1))).toEqual(Array.from(plain.explainer(w, tf, 0, tokens.length)(1)));
    expect(fused.attribution(w, [w[0]!, w[1]!], 2)).toBe(plain.attribution(w, [w[0]!, w[1]!], 2));
  });

  it("keeps nothing of the members' own arrays, so a dropped model file frees them", () => {
    const weights = Array.from({ length: 3 }, (_, k) => memberOf(20 + k, 32));
    const fused = createMlpEnsembleScorer(weights);
    const [w] = windows as [Uint32Array];
    const before = new Float64Array(heads);
    fused.logits(w, before);
    const explainedBefore = Array.from(fused.explainer(w, tf, 0, tokens.length)(0));
    // What the model file's buffer held: overwritten, as if freed and reused.
    for (const m of weights) for (const a of [m.emb, m.w1, m.b1, m.w2, m.b2]) a.fill(0);
    const after = new Float64Array(heads);
    fused.logits(w, after);
    expect(Array.from(after)).toEqual(Array.from(before));
    expect(Array.from(fused.explainer(w, tf, 0, tokens.length)(0))).toEqual(explainedBefore);
  });

  it("members of different shapes, or one member, score as the plain ensemble does", () => {
    for (const weights of [[memberOf(1, 4), memberOf(2, 32)], [memberOf(3, 32)]]) {
      const [a, b] = [new Float64Array(heads), new Float64Array(heads)];
      createMlpEnsembleScorer(weights).logits(windows[0]!, a);
      createEnsembleScorer(weights.map(createMlpScorer)).logits(windows[0]!, b);
      expect(Array.from(a)).toEqual(Array.from(b));
    }
  });
});

describe("per-head member weights (an expert member)", () => {
  // Members 0 and 1 count once for every head; member 2 counts twice for head 1 and not at all elsewhere.
  const raw = Float32Array.from([1, 1, 1, 1, 1, 1, 0, 2, 0]);
  const weights = memberHeadWeightsOf(raw, 3, heads);
  const each = members.map((m) => { const o = new Float64Array(heads); m.scorer.logits(window, o); return o; });

  it("scores each head as its members' weighted mean; a member weighted 0 does not move a head", () => {
    const out = new Float64Array(heads);
    createEnsembleScorer(members.map((m) => m.scorer), weights).logits(window, out);
    expect(out[0]).toBeCloseTo((each[0]![0]! + each[1]![0]!) / 2, 12);
    expect(out[1]).toBeCloseTo((each[0]![1]! + each[1]![1]! + 2 * each[2]![1]!) / 4, 12);
    expect(out[2]).toBeCloseTo((each[0]![2]! + each[1]![2]!) / 2, 12);
  });

  it("explains each head by the same weights", () => {
    const scorer = createEnsembleScorer(members.map((m) => m.scorer), weights);
    const explain = scorer.explainer(window, tf, 0, tokens.length);
    const subset: number[] = [];
    tokenFeatures(text, tokens[3]!, spec, (b) => subset.push(b));
    const attr = members.map((m) => [0, 1, 2].map((h) => m.scorer.attribution(window, subset, h)));
    expect(scorer.attribution(window, subset, 0)).toBeCloseTo((attr[0]![0]! + attr[1]![0]!) / 2, 12);
    expect(scorer.attribution(window, subset, 1)).toBeCloseTo((attr[0]![1]! + attr[1]![1]! + 2 * attr[2]![1]!) / 4, 12);
    expect(explain(1)[3]).toBeCloseTo(scorer.attribution(window, subset, 1), 12);
  });

  it("the side-by-side scorer weighs members as the plain one does", () => {
    const rand = createPrng(5);
    const f32 = (n: number): Float32Array => Float32Array.from({ length: n }, () => rand() * 2 - 1);
    const mlp = Array.from({ length: 3 }, () => ({
      buckets: spec.buckets, heads, dim: 32, hidden: 48, embScale: 0.01 + rand() * 0.01,
      emb: Int8Array.from({ length: spec.buckets * 32 }, () => Math.round((rand() * 2 - 1) * 127)),
      w1: f32(48 * 32), b1: f32(48), w2: f32(heads * 48), b2: f32(heads),
    }));
    const [a, b] = [new Float64Array(heads), new Float64Array(heads)];
    createMlpEnsembleScorer(mlp, weights).logits(window, a);
    createEnsembleScorer(mlp.map(createMlpScorer), weights).logits(window, b);
    for (let h = 0; h < heads; h++) expect(a[h]).toBeCloseTo(b[h]!, 12);
  });

  it("a model file's memberHeads tensor loads as those weights; bad tensors are refused", () => {
    const parts = [fileMember(createPrng(1), 0.02), fileMember(createPrng(2), 0.02)];
    const expertRow = MODEL_HEADS.map((c) => (c === "harassment" ? 3 : 0));
    const combined = ensembleOf(parts, [MODEL_HEADS.map(() => 1), expertRow]);
    expect(Array.from(combined.tensors["memberHeads"]!)).toEqual([...MODEL_HEADS.map(() => 1), ...expertRow]);
    const header = fileHeader("text-test-expert");
    const fromFile = scorerOf(decodeModel(encodeModel({ ...header, params: combined.params }, combined.tensors)));
    const [x, y, p0, p1] = [0, 1, 2, 3].map(() => new Float64Array(MODEL_HEADS.length)) as [Float64Array, Float64Array, Float64Array, Float64Array];
    fromFile.logits(window, x);
    combined.scorer.logits(window, y);
    parts[0]!.scorer.logits(window, p0);
    parts[1]!.scorer.logits(window, p1);
    const harassment = MODEL_HEADS.indexOf("harassment");
    for (let h = 0; h < MODEL_HEADS.length; h++) {
      expect(x[h]).toBeCloseTo(y[h]!, 12);
      expect(x[h]).toBeCloseTo(h === harassment ? (p0[h]! + 3 * p1[h]!) / 4 : p0[h]!, 12);
    }
    const bad = (memberHeads: Float32Array) => () => scorerOf(decodeModel(encodeModel({ ...header, params: combined.params }, { ...combined.tensors, memberHeads })));
    expect(bad(new Float32Array(3))).toThrow(/memberHeads holds 3 values/);
    expect(bad(new Float32Array(2 * MODEL_HEADS.length))).toThrow(/no member counts for head 0/);
    expect(bad(Float32Array.from([...MODEL_HEADS.map(() => 1), -1, ...expertRow.slice(1)]))).toThrow(/weight -1/);
  });
});
