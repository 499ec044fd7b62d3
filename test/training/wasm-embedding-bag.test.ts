import { describe, expect, it } from "vitest";
import { createPrng } from "../../src/training/prng.js";
import { trainMlp } from "../../src/training/train-mlp.js";
import { createEmbeddingBagKernels } from "../../src/training/wasm-embedding-bag.js";
import { bytesOf, toyHarassmentCorpus } from "../support/toy-corpus.js";

describe("the embedding bag's training loops in WebAssembly (embedding-bag.wat)", () => {
  const rows = 64, dim = 32;
  const rand = createPrng(9);

  it("sums a window's rows and takes AdaGrad steps as train-mlp.ts's JavaScript does, to the bit", () => {
    const k = createEmbeddingBagKernels(rows, dim)!;
    expect(k).toBeDefined();
    const emb = new Float32Array(rows * dim), g = new Float32Array(rows * dim);
    for (let i = 0; i < emb.length; i++) emb[i] = i % 97 === 0 ? -0 : (rand() * 2 - 1) * 0.1;
    k.emb.set(emb);
    const lr = 0.05;
    const step = (p: Float32Array, gs: Float32Array, at: number, grad: number): void => {
      gs[at]! += grad * grad;
      p[at]! -= (lr * grad) / Math.sqrt(gs[at]! + 1e-8);
    };
    for (let round = 0; round < 20; round++) {
      // Repeated rows in one window, as hashed features can collide.
      const feats = Uint32Array.from({ length: 40 }, () => Math.floor(rand() * rows));
      const [from, to] = [round % 5, 40 - (round % 3)];
      const sum = new Float64Array(dim), want = new Float64Array(dim);
      expect(k.bagSum(feats, from, to, sum)).toBe(true);
      for (let i = from; i < to; i++) for (let d = 0; d < dim; d++) want[d]! += emb[feats[i]! * dim + d]!;
      expect(bytesOf(sum).equals(bytesOf(want))).toBe(true);

      // Some gradient lanes are 0 or -0: those values must not move, as the JavaScript skips them.
      const dh0 = Float64Array.from({ length: dim }, (_, d) => (d % 5 === 0 ? 0 : d % 7 === 0 ? -0 : (rand() * 2 - 1) * 10 ** (round % 4 - 2)));
      const norm = 1 / Math.sqrt(to - from);
      expect(k.adagradRows(feats, from, to, dh0, norm, lr)).toBe(true);
      for (let i = from; i < to; i++) for (let d = 0; d < dim; d++) if (dh0[d] !== 0) step(emb, g, feats[i]! * dim + d, dh0[d]! * norm);
      expect(bytesOf(k.emb).equals(bytesOf(emb))).toBe(true);
      expect(bytesOf(k.gEmb).equals(bytesOf(g))).toBe(true);
    }
  });

  it("trains the same network to the byte as the JavaScript loops", () => {
    const spec = { buckets: 1 << 12, minN: 3, maxN: 5 };
    const corpus = toyHarassmentCorpus(spec);
    const all = Uint32Array.from({ length: corpus.rows }, (_, i) => i);
    const train = (wasm: boolean) => trainMlp(corpus, all, spec.buckets, { heads: [0, 2], seed: 3, epochs: 2, wasm });
    const [fast, plain] = [train(true), train(false)];
    for (const name of ["emb", "w1", "b1", "w2", "b2"] as const) expect(bytesOf(fast.tensors[name]!).equals(bytesOf(plain.tensors[name]!))).toBe(true);
    expect(fast.params).toEqual(plain.params);
  });

  it("leaves odd widths to JavaScript", () => {
    expect(createEmbeddingBagKernels(4, 3)).toBeUndefined();
  });
});
