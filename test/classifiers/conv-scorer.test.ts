import { describe, expect, it } from "vitest";
import { createConvScorer, CONV_WIDTH } from "../../src/classifiers/model/conv-scorer.js";
import { featuresOfTokens, tokenFeaturesOf, tokenize } from "../../src/classifiers/model/features.js";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { buildCorpus } from "../../src/training/corpus.js";
import { example, makeLabels } from "../../src/training/datasets/example.js";
import { createPrng } from "../../src/training/prng.js";
import { trainConv } from "../../src/training/train-conv.js";
import { rowLogits, windowLogits } from "../../src/training/window-logits.js";

const spec = { buckets: 1 << 12, minN: 3, maxN: 5 };
const heads = 2, dim = 8, hidden = 4, filters = 5;

function randomConv(seed: number, bagWeights = true) {
  // Without bag weights the filter biases are zero too, so a filter's pooled value is all its tokens'.
  const rand = createPrng(seed);
  const f32 = (n: number): Float32Array => Float32Array.from({ length: n }, () => rand() * 2 - 1);
  const w2 = f32(heads * (hidden + filters));
  if (!bagWeights) for (let k = 0; k < heads; k++) w2.fill(0, k * (hidden + filters), k * (hidden + filters) + hidden);
  return createConvScorer({
    buckets: spec.buckets, heads, dim, hidden, filters, emb: Int8Array.from({ length: spec.buckets * dim }, () => Math.round((rand() * 2 - 1) * 100)), embScale: 0.02,
    w1: f32(hidden * dim), b1: f32(hidden), wc: f32(CONV_WIDTH * filters * dim), bc: bagWeights ? f32(filters) : new Float32Array(filters), w2, b2: f32(heads),
  });
}

function logitsOf(scorer: ReturnType<typeof randomConv>, raw: string): Float64Array {
  const text = normalizeForMatching(raw);
  const tokens = tokenize(text);
  const tf = tokenFeaturesOf(text, tokens, spec);
  const out = new Float64Array(heads);
  scorer.windowLogits(featuresOfTokens(tf, spec.buckets, 0, tokens.length), tf, 0, tokens.length, out);
  return out;
}

describe("conv family", () => {
  it("sees word order: the same words in another order score differently", () => {
    const scorer = randomConv(11);
    const a = logitsOf(scorer, "time to kill the dog");
    const b = logitsOf(scorer, "kill the dog to time");
    expect(Math.abs(a[0]! - b[0]!) + Math.abs(a[1]! - b[1]!)).toBeGreaterThan(1e-6);
    // The same text scores the same twice (per-text projection caches are reset between texts).
    expect([...logitsOf(scorer, "time to kill the dog")]).toEqual([...a]);
  });

  it("explanations split the pooled filters exactly among the tokens that produced them", () => {
    const scorer = randomConv(5, false);
    const text = normalizeForMatching("you are a stupid idiot and we will hurt you");
    const tokens = tokenize(text);
    const tf = tokenFeaturesOf(text, tokens, spec);
    const window = featuresOfTokens(tf, spec.buckets, 0, tokens.length);
    const out = new Float64Array(heads);
    scorer.windowLogits(window, tf, 0, tokens.length, out);
    // With no bag weights and no filter biases, the logit minus the logit of an empty window is
    // all the tokens' doing; the explainer's shares add up to it exactly.
    const empty = new Float64Array(heads);
    scorer.windowLogits(window, tf, 0, 0, empty);
    const ex = scorer.explainer(window, tf, 0, tokens.length);
    for (let h = 0; h < heads; h++) {
      const shares = ex(h).reduce((a, b) => a + b, 0);
      expect(Math.abs(shares)).toBeGreaterThan(1e-3);
      expect(shares).toBeCloseTo(out[h]! - empty[h]!, 9);
    }
  });

  it("training rows score as the engine scores the same text (same tokens, same features)", () => {
    const texts = ["i will hurt you tomorrow", "see you at the meeting tomorrow", "you are a stupid idiot"];
    const examples = texts.map((t, i) => example("toy", "x", t, makeLabels(i === 1 ? {} : { harassment: 1 }, i === 1 ? "benign" : "unknown")));
    const corpus = buildCorpus(examples, { hashing: spec, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 100, sequences: true });
    const rows = Uint32Array.from({ length: corpus.rows }, (_, i) => i);
    const trained = trainConv(corpus, rows, spec.buckets, { heads: [0, 2], seed: 3, epochs: 2, dim, hidden, filters });
    const a = new Float64Array(2), b = new Float64Array(2);
    for (let r = 0; r < corpus.rows; r++) {
      rowLogits(trained.scorer, corpus, r, a);
      const text = normalizeForMatching(texts[corpus.example[r]!]!);
      windowLogits(trained.scorer, text, spec, 0, text.length, b);
      expect(a[0]).toBeCloseTo(b[0]!, 9);
      expect(a[1]).toBeCloseTo(b[1]!, 9);
    }
  });
});
