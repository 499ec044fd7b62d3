import { describe, expect, it } from "vitest";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { inCalibrationSplit } from "../../src/training/corpus.js";
import { CATEGORY_INDEX, makeLabels, type Example } from "../../src/training/datasets/example.js";
import { BENIGN_SENTENCE_SLICE, benignSentences } from "../../src/training/benign-sentences.js";

const post = (text: string, dataset: string, violence: 0 | 1): Example => ({ text, dataset, slice: "posts", labels: makeLabels({ violence }, "unknown") });
const options = { perDataset: 10, seed: 7, calibrationShare: 0, weight: 0.5 };

describe("benignSentences (a probe, off by default)", () => {
  it("cuts rows no source calls harmful into their sentences, keeping only the row's negatives", () => {
    const examples = [
      post("The nurse drew blood from a vein in my arm this morning. It did not hurt at all! Then we went home.", "clinic", 0),
      post("I will draw your blood tonight. You will not see it coming.", "clinic", 1), // harmful: nothing
      post("One sentence only, however long it may run on and on.", "clinic", 0), // a single sentence: nothing
    ];
    const out = benignSentences(examples, options);
    // "It did not hurt at all!" (23 characters) and "Then we went home." are too short to be kept.
    expect(out.map((e) => e.text)).toEqual(["The nurse drew blood from a vein in my arm this morning."]);
    const sentence = out[0]!;
    expect(sentence.slice).toBe(BENIGN_SENTENCE_SLICE);
    expect(sentence.dataset).toBe("clinic");
    expect(sentence.labels[CATEGORY_INDEX.violence]).toBe(0);
    expect(sentence.labels[CATEGORY_INDEX.sexual]).toBe(-1); // the source did not judge it
    expect(sentence).toMatchObject({ trainingOnly: true, uncounted: true, weight: 0.5 });
  });

  it("draws at most perDataset per dataset, the same ones for the same seed, none from calibration texts", () => {
    const rows = Array.from({ length: 30 }, (_, i) => post(`First sentence number ${i} is here today. Second sentence number ${i} follows it now.`, "forum", 0));
    const drawn = benignSentences(rows, { ...options, perDataset: 5 });
    expect(drawn).toHaveLength(5);
    expect(benignSentences(rows, { ...options, perDataset: 5 }).map((e) => e.text)).toEqual(drawn.map((e) => e.text));
    const share = 0.5;
    const inTraining = rows.filter((r) => !inCalibrationSplit(normalizeForMatching(r.text), options.seed, share));
    expect(inTraining.length).toBeLessThan(rows.length);
    const fromTraining = new Set(inTraining.flatMap((r) => r.text.split(/(?<=[.!?])\s+/)));
    const all = benignSentences(rows, { ...options, perDataset: 100, calibrationShare: share });
    expect(all).toHaveLength(fromTraining.size);
    expect(all.every((e) => fromTraining.has(e.text))).toBe(true);
  });
});
