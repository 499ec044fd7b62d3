import { describe, expect, it } from "vitest";
import { buildCorpus } from "../../src/training/corpus.js";
import { example, makeLabels } from "../../src/training/datasets/example.js";
import { createPrng } from "../../src/training/prng.js";
import { sourceOffsets } from "../../src/training/source-offsets.js";
import { trainMlp } from "../../src/training/train-mlp.js";
import { windowLogits } from "../../src/training/window-logits.js";

const spec = { buckets: 1 << 14, minN: 3, maxN: 5 };
const window = { size: 480, stride: 240 };
// One head: harassment.
const heads = [0];

/**
 * Two sources with a style word each and very different base rates: "forum" posts all carry
 * "lolz" and are 80 % harassment, "wire" posts carry "dispatch" and are 10 %; the harm itself is
 * the same word ("zorp") in both. A third source, "queries", is harmless only.
 */
function toyCorpus() {
  const rand = createPrng(9);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const filler = (): string => `${pick(["the", "a", "my"])} ${pick(["train", "lunch", "garden", "meeting"])} ${pick(["was", "is", "looks"])} ${pick(["late", "fine", "green", "long"])}`;
  const post = (style: string, harmful: boolean, i: number): string => `${style} ${filler()} ${harmful ? "you zorp" : filler()} ${i}`;
  const examples = [];
  for (let i = 0; i < 400; i++) {
    const forumHarm = i % 10 < 8, wireHarm = i % 10 === 0;
    examples.push(example("forum", "x", post("lolz", forumHarm, i), makeLabels({ harassment: forumHarm ? 1 : 0 }, "unknown")));
    examples.push(example("wire", "x", post("dispatch", wireHarm, i), makeLabels({ harassment: wireHarm ? 1 : 0 }, "unknown")));
    if (i < 100) examples.push(example("queries", "x", `set an alarm for ${filler()} ${i}`, makeLabels({ harassment: 0 }, "unknown")));
  }
  return buildCorpus(examples, { hashing: spec, window, seed: 1, calibrationShare: 0, datasetCap: 100000 });
}

describe("per-source offsets (source-offsets.ts)", () => {
  const corpus = toyCorpus();
  const rows = Uint32Array.from({ length: corpus.rows }, (_, i) => i);

  it("gives an offset only to a dataset with both classes for a head", () => {
    const offsets = sourceOffsets(corpus, rows, heads, 20, [1]);
    const slotOf = (name: string): number => offsets.slot[corpus.datasets.indexOf(name) * heads.length]!;
    expect(offsets.pairs).toBe(2);
    expect(slotOf("forum")).toBeGreaterThanOrEqual(0);
    expect(slotOf("wire")).toBeGreaterThanOrEqual(0);
    expect(slotOf("queries")).toBe(-1);
    // The wire's 40 positives are under a minimum of 50: no offset.
    expect(sourceOffsets(corpus, rows, heads, 50, [1]).slot[corpus.datasets.indexOf("wire")]).toBe(-1);
  });

  // The offsets start at each source's base rate, so the style word no longer carries it; in this
  // toy the whole rate difference is the harm word's, so the style word even reads a little safe
  // (the price of the probe: a source's real difference in content is taken for sampling).
  it("the network learns a source's style as harm without offsets, not with them; the harm word either way", () => {
    const logit = (trained: ReturnType<typeof trainMlp>, text: string): number => {
      const out = new Float64Array(1);
      windowLogits(trained.scorer, text, spec, 0, text.length, out);
      return out[0]!;
    };
    const styleGap = (trained: ReturnType<typeof trainMlp>): number =>
      logit(trained, "lolz the lunch was fine my garden looks green") - logit(trained, "dispatch the lunch was fine my garden looks green");
    const plain = trainMlp(corpus, rows, spec.buckets, { heads, seed: 3, epochs: 4 });
    const offset = trainMlp(corpus, rows, spec.buckets, { heads, seed: 3, epochs: 4, sourceOffsetMin: 20 });
    expect(styleGap(plain)).toBeGreaterThan(1);
    expect(styleGap(offset)).toBeLessThan(0.5);
    // The harm separates from the filler within each source either way.
    for (const trained of [plain, offset]) {
      expect(logit(trained, "dispatch my train is late you zorp")).toBeGreaterThan(logit(trained, "dispatch my train is late the meeting looks long") + 2);
    }
  });
});
