import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import { scorerOf } from "../../src/classifiers/engine/engine.js";
import { featuresOfTokens, type HashingSpec, tokenFeaturesOf, tokenize } from "../../src/classifiers/model/features.js";
import { decodeModel, encodeModel } from "../../src/classifiers/model/model-file.js";
import type { Scorer } from "../../src/classifiers/model/scorers.js";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { buildCorpus, type Corpus } from "../../src/training/corpus.js";
import type { TrainedModel } from "../../src/training/trainer.js";
import { example, makeLabels } from "../../src/training/datasets/example.js";
import { createPrng } from "../../src/training/prng.js";

/**
 * 400 toy rows a network learns in two epochs: "you zorp go away N" is harassment, "put the cup on
 * the plate N" is not (hate 0 in both), the made-up words drawn from a fixed seed.
 */
export function toyHarassmentCorpus(hashing: HashingSpec): Corpus {
  const r = createPrng(4);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const examples = [];
  for (let i = 0; i < 200; i++) {
    examples.push(example("toy", "x", `you ${pick(["zorp", "blag", "snerk"])} go away ${i}`, makeLabels({ harassment: 1, hate: 0 }, "unknown")));
    examples.push(example("toy", "x", `put the ${pick(["spoon", "cup"])} on the plate ${i}`, makeLabels({ harassment: 0, hate: 0 }, "unknown")));
  }
  return buildCorpus(examples, { hashing, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 100000 });
}

/** A typed array's bytes, to compare two arrays to the bit. */
export const bytesOf = (a: { buffer: ArrayBufferLike; byteOffset: number; byteLength: number }): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** Head 0's raw logit of `text` under a network of two heads trained on the toy corpus with `hashing`. */
export function toyHeadLogit(scorer: Scorer, hashing: HashingSpec, text: string): number {
  const normalized = normalizeForMatching(text);
  const tokens = tokenize(normalized);
  const out = new Float64Array(2);
  scorer.logits(featuresOfTokens(tokenFeaturesOf(normalized, tokens, hashing), hashing.buckets, 0, tokens.length), out);
  return out[0]!;
}

/**
 * A toy-trained network of the harassment and hate heads written to a model file and read back
 * through the engine's scorerOf: the logits of the corpus's first rows, as trained and as read.
 */
export function toyLogitsThroughModelFile(trained: TrainedModel, corpus: Corpus, hashing: HashingSpec, id: string): { trained: number[]; read: number[] }[] {
  const header = {
    format: "moderation-text-model" as const, version: 1 as const, id, family: "embedding-mlp" as const, heads: [CATEGORY_IDS[0]!, CATEGORY_IDS[2]!], hashing,
    window: { size: 480, stride: 240 }, calibration: {}, thresholds: {}, lexicon: { sexual: 0.7, graphicViolence: 0.7 }, training: {}, params: trained.params,
  };
  const read = scorerOf(decodeModel(encodeModel(header as never, trained.tensors as never)));
  return Array.from({ length: 20 }, (_, r) => {
    const feats = corpus.feats.subarray(corpus.offsets[r]!, corpus.offsets[r + 1]!);
    const a = new Float64Array(2), b = new Float64Array(2);
    trained.scorer.logits(feats, a);
    read.logits(feats, b);
    return { trained: Array.from(a), read: Array.from(b) };
  });
}
