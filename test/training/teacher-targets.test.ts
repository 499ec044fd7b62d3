import { describe, expect, it } from "vitest";
import { buildCorpus } from "../../src/training/corpus.js";
import { example, makeLabels } from "../../src/training/datasets/example.js";
import { createPrng } from "../../src/training/prng.js";
import { trainMlp } from "../../src/training/train-mlp.js";
import { buildModelFile } from "../../src/training/build-model.js";
import { blendTargets, teacherTargetsOf } from "../../src/training/teacher-export.js";
import { rowLogits } from "../../src/training/window-logits.js";

const spec = { buckets: 1 << 14, minN: 3, maxN: 5 };
// Two heads: harassment (the toy source labels it) and violence (the toy source says nothing).
const heads = [0, 9];

/** Rows about wolves and spoons; the source labels harassment only (all negative). */
function toyCorpus() {
  const rand = createPrng(11);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const texts: string[] = [];
  for (let i = 0; i < 400; i++) {
    texts.push(`the wolf ${pick(["bites", "attacks", "mauls"])} the ${pick(["hunter", "sheep", "deer"])} at ${pick(["night", "dusk"])}`);
    texts.push(`put the spoon ${pick(["on", "beside"])} the ${pick(["plate", "table", "bowl"])} for ${pick(["dinner", "lunch"])}`);
  }
  const examples = texts.map((t) => example("toy", "x", t, makeLabels({ harassment: 0 }, "unknown")));
  const corpus = buildCorpus(examples, { hashing: spec, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 100000 });
  return { corpus, isWolf: (r: number): boolean => examples[corpus.example[r]!]!.text.includes("wolf") };
}

describe("teacher targets (distilling a teacher into the embedding-bag MLP)", () => {
  const { corpus, isWolf } = toyCorpus();
  const rows = Uint32Array.from({ length: corpus.rows }, (_, i) => i);
  const wolfRows = rows.filter(isWolf).length;
  const share = (wolf: boolean): number => (wolf ? wolfRows : corpus.rows - wolfRows);
  // The teacher believes wolf rows are violent (and, wrongly, harassing); spoon rows are neither.
  const probs = new Uint8Array(corpus.rows * heads.length);
  for (let r = 0; r < corpus.rows; r++) {
    probs[r * 2] = isWolf(r) ? 255 : 0;
    probs[r * 2 + 1] = isWolf(r) ? 255 : 0;
  }
  const meanScores = (trained: ReturnType<typeof trainMlp>): { wolf: number[]; spoon: number[] } => {
    const out = new Float64Array(heads.length);
    const sums = { wolf: [0, 0], spoon: [0, 0] };
    for (let r = 0; r < corpus.rows; r++) {
      rowLogits(trained.scorer, corpus, r, out);
      const s = sums[isWolf(r) ? "wolf" : "spoon"];
      for (let k = 0; k < 2; k++) s[k]! += 1 / (1 + Math.exp(-out[k]!)) / share(isWolf(r));
    }
    return sums;
  };

  it("an unlabelled head learns the teacher's probability; without a teacher it learns nothing", () => {
    const taught = meanScores(trainMlp(corpus, rows, spec.buckets, { heads, seed: 3, epochs: 3, teacher: { probs, weight: 0.5 } }));
    const alone = meanScores(trainMlp(corpus, rows, spec.buckets, { heads, seed: 3, epochs: 3 }));
    expect(taught.wolf[1]! - taught.spoon[1]!).toBeGreaterThan(0.5);
    expect(Math.abs(alone.wolf[1]! - alone.spoon[1]!)).toBeLessThan(0.1);
  });

  it("a head the source labels follows the label, not the teacher", () => {
    const taught = meanScores(trainMlp(corpus, rows, spec.buckets, { heads, seed: 3, epochs: 3, teacher: { probs, weight: 0.5 } }));
    expect(taught.wolf[0]!).toBeLessThan(0.1);
  });

  it("a head left out of the teacher's heads learns nothing from it", () => {
    // Only head 0 (harassment, labelled) may learn the teacher: violence stays untaught.
    const restricted = meanScores(trainMlp(corpus, rows, spec.buckets, { heads, seed: 3, epochs: 3, teacher: { probs, weight: 0.5, heads: new Set([0]) } }));
    expect(Math.abs(restricted.wolf[1]! - restricted.spoon[1]!)).toBeLessThan(0.1);
    const taught = meanScores(trainMlp(corpus, rows, spec.buckets, { heads, seed: 3, epochs: 3, teacher: { probs, weight: 0.5, heads: new Set([1]) } }));
    expect(taught.wolf[1]! - taught.spoon[1]!).toBeGreaterThan(0.5);
  });

  it("refuses targets packed for another corpus", () => {
    expect(() => trainMlp(corpus, rows, spec.buckets, { heads, seed: 3, epochs: 1, teacher: { probs: probs.subarray(2), weight: 0.5 } })).toThrow(/teacher/);
  });

  it("a fold model exports its own probabilities in the layout --teacher reads, and they teach a student", () => {
    const teacherRun = trainMlp(corpus, rows, spec.buckets, { heads, seed: 3, epochs: 3, teacher: { probs, weight: 0.5 } });
    const calibrationRows = rows.filter((r) => r % 5 === 0);
    const { model } = buildModelFile({ id: "toy", corpus, calibrationRows, trained: teacherRun, heads, hashing: spec, window: { size: 480, stride: 240 }, training: {} });
    const exported = teacherTargetsOf(model, corpus);
    expect(exported.length).toBe(corpus.rows * heads.length);
    // The exported violence column separates the rows as the first teacher did.
    const meanOf = (wolf: boolean): number => rows.filter((r) => isWolf(r) === wolf).reduce((s, r) => s + exported[r * 2 + 1]!, 0) / share(wolf) / 255;
    expect(meanOf(true) - meanOf(false)).toBeGreaterThan(0.5);
    const student = meanScores(trainMlp(corpus, rows, spec.buckets, { heads, seed: 5, epochs: 3, teacher: { probs: exported, weight: 0.5 } }));
    expect(student.wolf[1]! - student.spoon[1]!).toBeGreaterThan(0.4);
  });
});

describe("blended teachers (teacher-blend.ts)", () => {
  it("is the sigmoid of the mean of both teachers' logits", () => {
    const a = Uint8Array.from([0, 51, 128, 230, 255, 200]);
    const b = Uint8Array.from([0, 51, 128, 25, 255, 128]);
    const blended = blendTargets(a, b);
    // Agreeing teachers keep their target; opposite ones meet in the middle.
    expect(Array.from(blended.slice(0, 3))).toEqual([0, 51, 128]);
    expect(blended[3]).toBe(128);
    expect(blended[4]).toBe(255);
    // In logit space, not probability space: 0.78 and 0.5 give 0.65, not the arithmetic 0.64.
    const logit = (v: number): number => Math.log(v / (255 - v));
    expect(blended[5]).toBe(Math.round(255 / (1 + Math.exp(-(logit(200) + logit(128)) / 2))));
    expect(Array.from(blendTargets(b, a))).toEqual(Array.from(blended));
  });

  it("refuses teachers of different sizes", () => {
    expect(() => blendTargets(new Uint8Array(10), new Uint8Array(20))).toThrow(/differ in size/);
  });
});
