import { describe, expect, it } from "vitest";
import { createMlpScorer } from "../../src/classifiers/model/scorers.js";
import { trainMlp } from "../../src/training/train-mlp.js";
import { dim, expectEnsembleOfMembers, expectExplanationsWithPoolingCredit, heads, logitsOfInput, randomPooledNetwork, window } from "../support/pooled-network.js";
import { toyHarassmentCorpus, toyHeadLogit, toyLogitsThroughModelFile } from "../support/toy-corpus.js";

// The --attention-pool probe (scorers.ts MlpWeights.attention): the hidden layer reads the bag's
// scaled sum and its rows averaged with softmax weights of a learned vector's dot product with each.
const withAttention = (seed: number) => randomPooledNetwork(seed, (rand) => ({ attention: Float32Array.from({ length: dim }, () => (rand() * 2 - 1) * 20) }));

describe("a network that also reads the bag's attention-weighted mean", () => {
  const net = withAttention(5);
  const row = (f: number, d: number): number => net.emb[f * dim + d]! * net.embScale;

  it("scores ReLU(w1 [sum / sqrt(n), sum of softmax(a . row) row] + b1) through the heads", () => {
    const scores = Array.from(window, (f) => Array.from({ length: dim }, (_, d) => net.attention![d]! * row(f, d)).reduce((a, b) => a + b, 0));
    const top = Math.max(...scores);
    const total = scores.reduce((a, s) => a + Math.exp(s - top), 0);
    const h0 = new Float64Array(2 * dim);
    window.forEach((f, i) => {
      for (let d = 0; d < dim; d++) {
        h0[d]! += row(f, d) / Math.sqrt(window.length);
        h0[dim + d]! += (Math.exp(scores[i]! - top) / total) * row(f, d);
      }
    });
    const out = new Float64Array(heads);
    createMlpScorer(net).logits(window, out);
    logitsOfInput(net, h0).forEach((w, k) => expect(out[k]).toBeCloseTo(w, 9));
    // The weights matter: a uniform vector (all rows weigh alike) scores the window otherwise.
    const uniform = new Float64Array(heads);
    createMlpScorer({ ...net, attention: new Float32Array(dim) }).logits(window, uniform);
    expect(Array.from(uniform)).not.toEqual(Array.from(out));
  });

  it("explains a token by its share of the sum and of the weighted mean, batched or per token", () => expectExplanationsWithPoolingCredit(net));

  it("is scored member by member in an ensemble, as the members score alone", () => expectEnsembleOfMembers([net, withAttention(6)]));
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
    expect(toyHeadLogit(trained.scorer, hashing, "you snerk go away")).toBeGreaterThan(toyHeadLogit(trained.scorer, hashing, "put the cup on the plate") + 2);
  });

  it("is read back from a model file as it was trained", () => {
    for (const logits of toyLogitsThroughModelFile(trained, corpus, hashing, "attention-toy")) expect(logits.read).toEqual(logits.trained);
  });
});
