import type { HashingSpec } from "../../src/classifiers/model/features.js";
import { buildCorpus, type Corpus } from "../../src/training/corpus.js";
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
