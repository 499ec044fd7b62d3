import { describe, expect, it } from "vitest";
import { loadTrainedClassifier } from "../../src/classifiers/engine/index.js";
import { EVERYDAY_MESSAGES, PLAIN_HARM } from "../../src/training/acceptance-sentences.js";

// The default model on the acceptance sentences (src/training/acceptance-sentences.ts): a model
// that fails these is not fit to be the default, whatever its AUPRC.
const classifier = loadTrainedClassifier();
const flaggedOf = (text: string) => {
  const verdict = classifier.classify(text) as Awaited<ReturnType<typeof classifier.classify>>;
  return Object.entries(verdict.categories).filter(([, v]) => v?.flagged).map(([k]) => k);
};

describe("the default text model on everyday messages", () => {
  it.each(EVERYDAY_MESSAGES)("does not flag %j", (text) => {
    expect(flaggedOf(text)).toEqual([]);
  });

  it.each(PLAIN_HARM)("flags %j as %s", (text, category) => {
    expect(flaggedOf(text)).toContain(category);
  });
});
