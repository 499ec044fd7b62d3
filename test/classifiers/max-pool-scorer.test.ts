import { describe, expect, it } from "vitest";
import { createMlpScorer } from "../../src/classifiers/model/scorers.js";
import { trainMlp } from "../../src/training/train-mlp.js";
import { dim, expectEnsembleOfMembers, expectExplanationsWithPoolingCredit, heads, logitsOfInput, randomPooledNetwork, window } from "../support/pooled-network.js";
import { bytesOf, toyHarassmentCorpus, toyHeadLogit, toyLogitsThroughModelFile } from "../support/toy-corpus.js";

// The --max-pool probe (scorers.ts MlpWeights.maxPool): the hidden layer reads the bag's scaled sum
// and its per-coordinate maximum side by side.
const withMaximum = (seed: number) => randomPooledNetwork(seed, () => ({ maxPool: true }));

describe("a network that also reads the bag's maximum", () => {
  const net = withMaximum(5);

  it("scores ReLU(w1 [sum / sqrt(n), max] + b1) through the heads", () => {
    const h0 = new Float64Array(2 * dim).fill(Number.NEGATIVE_INFINITY, dim);
    for (const f of window) {
      for (let d = 0; d < dim; d++) {
        h0[d]! += (net.emb[f * dim + d]! * net.embScale) / Math.sqrt(window.length);
        h0[dim + d] = Math.max(h0[dim + d]!, net.emb[f * dim + d]! * net.embScale);
      }
    }
    const out = new Float64Array(heads);
    createMlpScorer(net).logits(window, out);
    logitsOfInput(net, h0).forEach((w, k) => expect(out[k]).toBeCloseTo(w, 9));
    // The maximum is read: a network without it scores the same window otherwise.
    const sumOnly = new Float64Array(heads);
    createMlpScorer({ ...net, maxPool: false, w1: net.w1.filter((_, i) => i % (2 * dim) < dim) }).logits(window, sumOnly);
    expect(Array.from(sumOnly)).not.toEqual(Array.from(out));
  });

  it("explains a token by its share of the sum and of the maxima it holds, batched or per token", () => expectExplanationsWithPoolingCredit(net));

  it("is scored member by member in an ensemble, as the members score alone", () => expectEnsembleOfMembers([net, withMaximum(6)]));
});

describe("training a network that reads the bag's maximum", () => {
  const hashing = { buckets: 1 << 12, minN: 3, maxN: 5 };
  const corpus = toyHarassmentCorpus(hashing);
  const all = Uint32Array.from({ length: corpus.rows }, (_, i) => i);
  const train = (wasm: boolean) => trainMlp(corpus, all, hashing.buckets, { heads: [0, 2], seed: 3, epochs: 2, wasm, maxPool: true });
  const fast = train(true);

  it("trains the same network to the byte with the WebAssembly bag as in JavaScript, and learns", () => {
    const plain = train(false);
    for (const name of ["emb", "w1", "b1", "w2", "b2"] as const) expect(bytesOf(fast.tensors[name]!).equals(bytesOf(plain.tensors[name]!))).toBe(true);
    expect(fast.params["maxPool"]).toBe(1);
    expect(fast.tensors["w1"]!.length).toBe(48 * 64);
    expect(toyHeadLogit(fast.scorer, hashing, "you snerk go away")).toBeGreaterThan(toyHeadLogit(fast.scorer, hashing, "put the cup on the plate") + 2);
  });

  it("is read back from a model file as it was trained", () => {
    for (const logits of toyLogitsThroughModelFile(fast, corpus, hashing, "max-pool-toy")) expect(logits.read).toEqual(logits.trained);
  });
});
