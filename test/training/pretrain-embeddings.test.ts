import { describe, expect, it } from "vitest";
import { tokenFeaturesOf, tokenize } from "../../src/classifiers/model/features.js";
import { buildCorpus } from "../../src/training/corpus.js";
import { example, makeLabels } from "../../src/training/datasets/example.js";
import { createPrng } from "../../src/training/prng.js";
import { pretrainBuckets, scaledPretrained } from "../../src/training/pretrain-embeddings.js";
import { trainMlp } from "../../src/training/train-mlp.js";

const spec = { buckets: 1 << 14, minN: 3, maxN: 5 };
const dim = 16;

/**
 * A toy corpus where "wolf" and "bear" are used alike (animals that growl in the forest) and "spoon"
 * and "fork" are used alike (things on the kitchen table): no word pair is spelled alike, so only
 * co-occurrence can bring them together.
 */
function toyTexts(): string[] {
  const rand = createPrng(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const texts: string[] = [];
  for (let i = 0; i < 1500; i++) {
    const animal = pick(["wolf", "bear"]);
    const thing = pick(["spoon", "fork"]);
    texts.push(`the ${animal} ${pick(["growls", "howls", "hunts"])} in the ${pick(["forest", "woods", "mountains"])} at ${pick(["night", "dusk"])}`);
    texts.push(`put the ${thing} ${pick(["on", "beside"])} the ${pick(["plate", "table", "bowl"])} for ${pick(["dinner", "lunch", "breakfast"])}`);
  }
  return texts;
}

function wordVector(table: Float32Array, word: string): Float32Array {
  const tokens = tokenize(word);
  const tf = tokenFeaturesOf(word, tokens, spec);
  const v = new Float32Array(dim);
  for (let i = tf.from[0]!; i < tf.to[0]!; i++) for (let d = 0; d < dim; d++) v[d]! += table[tf.feats[i]! * dim + d]!;
  return v;
}

const cosine = (a: Float32Array, b: Float32Array): number => {
  let ab = 0, aa = 0, bb = 0;
  for (let d = 0; d < a.length; d++) { ab += a[d]! * b[d]!; aa += a[d]! ** 2; bb += b[d]! ** 2; }
  return ab / Math.sqrt(aa * bb);
};

describe("self-supervised pretraining of the feature table", () => {
  const examples = toyTexts().map((t) => example("toy", "x", t, makeLabels({}, "benign")));
  const corpus = buildCorpus(examples, { hashing: spec, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 100000, sequences: true });
  const rows = Uint32Array.from({ length: corpus.rows }, (_, i) => i);

  it("puts words used alike near each other, and words used apart far apart", () => {
    const table = scaledPretrained(pretrainBuckets(corpus, rows, spec.buckets, { dim, epochs: 3, seed: 1, subsample: 1 }), dim, 0.1);
    const wolf = wordVector(table.vectors, "wolf"), bear = wordVector(table.vectors, "bear");
    const spoon = wordVector(table.vectors, "spoon"), fork = wordVector(table.vectors, "fork");
    expect(cosine(wolf, bear)).toBeGreaterThan(cosine(wolf, spoon) + 0.2);
    expect(cosine(spoon, fork)).toBeGreaterThan(cosine(fork, bear) + 0.2);
  });

  it("reads only the rows it is given: a word of the other rows keeps no vector", () => {
    const animalRows = rows.filter((r) => examples[corpus.example[r]!]!.text.includes("growls") || examples[corpus.example[r]!]!.text.includes("howls") || examples[corpus.example[r]!]!.text.includes("hunts"));
    const table = pretrainBuckets(corpus, animalRows, spec.buckets, { dim, epochs: 1, seed: 1 });
    const tokens = tokenize("spoon");
    const unigram = tokenFeaturesOf("spoon", tokens, spec).feats[0]!;
    expect(table.touched[unigram]).toBe(0);
  });

  it("is reproducible from the seed, and the supervised run starts from it", () => {
    const a = pretrainBuckets(corpus, rows, spec.buckets, { dim, epochs: 1, seed: 5 });
    const b = pretrainBuckets(corpus, rows, spec.buckets, { dim, epochs: 1, seed: 5 });
    expect(Buffer.from(a.vectors.buffer).equals(Buffer.from(b.vectors.buffer))).toBe(true);
    const scaled = scaledPretrained(a, dim, 0.1);
    let sum = 0, n = 0;
    for (let k = 0; k < spec.buckets; k++) if (scaled.touched[k]) for (let d = 0; d < dim; d++) { sum += scaled.vectors[k * dim + d]! ** 2; n++; }
    expect(Math.sqrt(sum / n)).toBeCloseTo(0.1, 6);
    // No epochs of supervised training: the model's table is the pretrained one (as quantised).
    const trained = trainMlp(corpus, rows, spec.buckets, { heads: [0], seed: 3, epochs: 0, dim, hidden: 4, pretrained: scaled });
    const emb = trained.tensors["emb"] as Int8Array;
    const unigram = tokenFeaturesOf("wolf", tokenize("wolf"), spec).feats[0]!;
    const scale = trained.params["embScale"]!;
    for (let d = 0; d < dim; d++) expect(emb[unigram * dim + d]! * scale).toBeCloseTo(scaled.vectors[unigram * dim + d]!, 1);
  });
});
