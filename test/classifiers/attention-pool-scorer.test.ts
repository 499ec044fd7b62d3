import { describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import { scorerOf } from "../../src/classifiers/engine/engine.js";
import { featuresOfTokens, tokenFeatures, tokenFeaturesOf, tokenize } from "../../src/classifiers/model/features.js";
import { createMlpEnsembleScorer } from "../../src/classifiers/model/mlp-ensemble-scorer.js";
import { decodeModel, encodeModel } from "../../src/classifiers/model/model-file.js";
import { createMlpScorer } from "../../src/classifiers/model/scorers.js";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { createPrng } from "../../src/training/prng.js";
import { trainMlp } from "../../src/training/train-mlp.js";
import { toyHarassmentCorpus } from "../support/toy-corpus.js";

// The --attention-pool probe (scorers.ts MlpWeights.attention): the hidden layer reads the bag's
// scaled sum and its rows averaged with softmax weights of a learned vector's dot product with each.
const spec = { buckets: 1 << 10, minN: 3, maxN: 5 };
const heads = 3, dim = 4, hidden = 5;

function randomNetwork(seed: number) {
  const rand = createPrng(seed);
  const f32 = (n: number): Float32Array => Float32Array.from({ length: n }, () => rand() * 2 - 1);
  return {
    buckets: spec.buckets, heads, dim, hidden, embScale: 0.013, attention: Float32Array.from({ length: dim }, () => (rand() * 2 - 1) * 20),
    emb: Int8Array.from({ length: spec.buckets * dim }, () => Math.round((rand() * 2 - 1) * 100)),
    w1: f32(hidden * 2 * dim), b1: f32(hidden), w2: f32(heads * hidden), b2: f32(heads),
  };
}

const text = normalizeForMatching("You are a stupid idiot and everyone at the meeting knows it");
const tokens = tokenize(text);
const tf = tokenFeaturesOf(text, tokens, spec);
const window = featuresOfTokens(tf, spec.buckets, 0, tokens.length);

describe("a network that also reads the bag's attention-weighted mean", () => {
  const net = randomNetwork(5);
  const scorer = createMlpScorer(net);
  const row = (f: number, d: number): number => net.emb[f * dim + d]! * net.embScale;

  it("scores ReLU(w1 [sum / sqrt(n), sum of softmax(a . row) row] + b1) through the heads", () => {
    const scores = Array.from(window, (f) => Array.from({ length: dim }, (_, d) => net.attention[d]! * row(f, d)).reduce((a, b) => a + b, 0));
    const top = Math.max(...scores);
    const total = scores.reduce((a, s) => a + Math.exp(s - top), 0);
    const h0 = new Float64Array(2 * dim);
    window.forEach((f, i) => {
      for (let d = 0; d < dim; d++) {
        h0[d]! += row(f, d) / Math.sqrt(window.length);
        h0[dim + d]! += (Math.exp(scores[i]! - top) / total) * row(f, d);
      }
    });
    const want = Array.from({ length: heads }, (_, k) => {
      let s = net.b2[k]!;
      for (let m = 0; m < hidden; m++) {
        let a = net.b1[m]!;
        for (let d = 0; d < 2 * dim; d++) a += net.w1[m * 2 * dim + d]! * h0[d]!;
        s += net.w2[k * hidden + m]! * Math.max(0, a);
      }
      return s;
    });
    const out = new Float64Array(heads);
    scorer.logits(window, out);
    want.forEach((w, k) => expect(out[k]).toBeCloseTo(w, 9));
    // The weights matter: a uniform vector (all rows weigh alike) scores the window otherwise.
    const uniform = new Float64Array(heads);
    createMlpScorer({ ...net, attention: new Float32Array(dim) }).logits(window, uniform);
    expect(Array.from(uniform)).not.toEqual(Array.from(out));
  });

  it("explains a token by its share of the sum and of the weighted mean, batched or per token", () => {
    scorer.logits(window, new Float64Array(heads));
    const explain = scorer.explainer(window, tf, 0, tokens.length);
    // Another window scored in between: the explanation keeps its own window's weights.
    scorer.logits(window.subarray(0, 7), new Float64Array(heads));
    const explained = Array.from({ length: heads }, (_, h) => explain(h));
    let credited = 0;
    for (let h = 0; h < heads; h++) {
      tokens.forEach((t, i) => {
        const subset: number[] = [];
        tokenFeatures(text, t, spec, (b) => subset.push(b));
        const one = scorer.attribution(window, subset, h);
        expect(explained[h]![i]).toBeCloseTo(one, 9);
        const sumShare = createMlpScorer({ ...net, w1: net.w1.map((v, j) => (j % (2 * dim) < dim ? v : 0)) });
        if (Math.abs(one - sumShare.attribution(window, subset, h)) > 1e-9) credited++;
      });
    }
    expect(credited).toBeGreaterThan(0);
  });

  it("is scored member by member in an ensemble, as the members score alone", () => {
    const members = [net, randomNetwork(6)];
    const ensemble = createMlpEnsembleScorer(members);
    const out = new Float64Array(heads), a = new Float64Array(heads), b = new Float64Array(heads);
    ensemble.logits(window, out);
    createMlpScorer(members[0]!).logits(window, a);
    createMlpScorer(members[1]!).logits(window, b);
    for (let k = 0; k < heads; k++) expect(out[k]).toBeCloseTo((a[k]! + b[k]!) / 2, 12);
  });
});

describe("training a network that reads the bag's attention-weighted mean", () => {
  const hashing = { buckets: 1 << 12, minN: 3, maxN: 5 };
  const corpus = toyHarassmentCorpus(hashing);
  const all = Uint32Array.from({ length: corpus.rows }, (_, i) => i);
  const trained = trainMlp(corpus, all, hashing.buckets, { heads: [0, 2], seed: 3, epochs: 2, attentionPool: true });

  it("learns its attention vector beside the network", () => {
    expect(trained.params["attention"]).toBe(1);
    expect(trained.tensors["w1"]!.length).toBe(48 * 64);
    const att = trained.tensors["att"] as Float32Array;
    expect(att.length).toBe(32);
    expect(att.some((v) => v !== 0)).toBe(true);
    const harassment = (t: string): number => {
      const n = normalizeForMatching(t);
      const tt = tokenFeaturesOf(n, tokenize(n), hashing);
      const out = new Float64Array(2);
      trained.scorer.logits(featuresOfTokens(tt, hashing.buckets, 0, tokenize(n).length), out);
      return out[0]!;
    };
    expect(harassment("you snerk go away")).toBeGreaterThan(harassment("put the cup on the plate") + 2);
  });

  it("is read back from a model file as it was trained", () => {
    const header = {
      format: "moderation-text-model" as const, version: 1 as const, id: "attention-toy", family: "embedding-mlp" as const, heads: [CATEGORY_IDS[0]!, CATEGORY_IDS[2]!], hashing,
      window: { size: 480, stride: 240 }, calibration: {}, thresholds: {}, lexicon: { sexual: 0.7, graphicViolence: 0.7 }, training: {}, params: trained.params,
    };
    const file = decodeModel(encodeModel(header as never, trained.tensors as never));
    const read = scorerOf(file);
    for (let r = 0; r < 20; r++) {
      const feats = corpus.feats.subarray(corpus.offsets[r]!, corpus.offsets[r + 1]!);
      const a = new Float64Array(2), b = new Float64Array(2);
      trained.scorer.logits(feats, a);
      read.logits(feats, b);
      expect(Array.from(b)).toEqual(Array.from(a));
    }
  });
});
