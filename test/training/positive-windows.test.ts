import { describe, expect, it } from "vitest";
import { buildModelFile } from "../../src/training/build-model.js";
import { buildCorpus, exampleRuns } from "../../src/training/corpus.js";
import { example, makeLabels } from "../../src/training/datasets/example.js";
import { createPrng } from "../../src/training/prng.js";
import { choosePositiveWindows, trainMlp, type PositiveWindows } from "../../src/training/train-mlp.js";
import { windowLogits } from "../../src/training/window-logits.js";

const spec = { buckets: 1 << 14, minN: 3, maxN: 5 };
const window = { size: 480, stride: 240 };
// One head: harassment.
const heads = [0];

/**
 * Short insults ("zorp blag") are harassment; short spoon sentences and long garden talk are not. Long
 * harassment posts are two windows of garden talk and then an insult, as a long abusive post is
 * mostly ordinary prose: labelled as a whole, every window of one says "harassment".
 */
function toyCorpus() {
  const rand = createPrng(5);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const garden = (): string => `the ${pick(["roses", "tulips", "ferns"])} in the garden ${pick(["grow", "bloom", "wilt"])} near the ${pick(["fence", "shed", "pond"])} every ${pick(["spring", "summer"])}`;
  const insult = (): string => `you ${pick(["zorp", "blag", "snerk"])} ${pick(["zorp", "blag", "snerk"])} go away`;
  const examples = [];
  for (let i = 0; i < 300; i++) {
    examples.push(example("toy", "x", `${insult()} ${i}`, makeLabels({ harassment: 1 }, "unknown")));
    examples.push(example("toy", "x", `put the spoon on the plate ${i}`, makeLabels({ harassment: 0 }, "unknown")));
    if (i % 3 === 0) examples.push(example("toy", "x", `${Array.from({ length: 16 }, garden).join(". ")} ${i}`, makeLabels({ harassment: 0 }, "unknown")));
    if (i % 2 === 0) {
      const prose = Array.from({ length: 16 }, garden).join(". ");
      examples.push(example("toy", "x", `${prose}. and ${insult()} ${i}`, makeLabels({ harassment: 1 }, "unknown")));
    }
  }
  return buildCorpus(examples, { hashing: spec, window, seed: 1, calibrationShare: 0, datasetCap: 100000 });
}

const probability = (trained: ReturnType<typeof trainMlp>, text: string): number => {
  const out = new Float64Array(1);
  windowLogits(trained.scorer, text, spec, 0, text.length, out);
  return 1 / (1 + Math.exp(-out[0]!));
};

describe("positive windows (multiple-instance learning of long positive texts)", () => {
  const corpus = toyCorpus();
  const rows = Uint32Array.from({ length: corpus.rows }, (_, i) => i);
  const train = (positiveWindows: PositiveWindows) => trainMlp(corpus, rows, spec.buckets, { heads, seed: 3, epochs: 4, positiveWindows });

  it("the toy's long texts are several training windows each", () => {
    const long = exampleRuns(corpus, rows).filter((run) => run.length > 1);
    expect(long.length).toBe(150 + 100);
    expect(long.every((run) => run.length >= 2)).toBe(true);
  });

  it('"max" stops teaching ordinary prose the label of the long post it sits in; the insult stays harmful', () => {
    const all = train("all");
    const max = train("max");
    const prose = "the tulips in the garden bloom near the pond every summer. the ferns in the garden grow near the shed every spring. the roses in the garden wilt near the fence every summer. the ferns in the garden bloom near the pond every spring";
    expect(probability(all, prose)).toBeGreaterThan(0.3);
    expect(probability(max, prose)).toBeLessThan(0.2);
    expect(probability(max, "you snerk zorp go away")).toBeGreaterThan(0.9);
  });

  it("keeps each positive label on the window with the highest logit for that head, per head", () => {
    const logits: Record<number, number[]> = { 7: [0.1, 2], 8: [3, -1], 9: [0.5, 0.4] };
    const silenced = new Uint8Array(10 * 2);
    // Rows 7-9 are one text, positive for head 0 and not for head 1.
    choosePositiveWindows([Uint32Array.of(7, 8, 9)], 2, (r, out) => out.set(logits[r]!), (_r, k) => k === 0, silenced);
    expect([7, 8, 9].map((r) => silenced[r * 2])).toEqual([1, 0, 1]);
    expect([7, 8, 9].map((r) => silenced[r * 2 + 1])).toEqual([0, 0, 0]);
  });
});

describe("calibration points by example", () => {
  it('"example" fits one point per text (its highest window), "window" one per window', () => {
    const corpus = toyCorpus();
    const rows = Uint32Array.from({ length: corpus.rows }, (_, i) => i);
    const trained = trainMlp(corpus, rows, spec.buckets, { heads, seed: 3, epochs: 1 });
    const build = (calibrateBy: "window" | "example") =>
      buildModelFile({ id: "toy", corpus, calibrationRows: rows, calibrateBy, trained, heads, hashing: spec, window, training: {} }).reports[0]!;
    const texts = exampleRuns(corpus, rows).length;
    const byWindow = build("window");
    const byExample = build("example");
    expect(byWindow.positives + byWindow.negatives).toBe(corpus.rows);
    expect(byExample.positives + byExample.negatives).toBe(texts);
    expect(byExample.positives).toBe(300 + 150);
  });
});
