import { CATEGORY_IDS, type CategoryId } from "../../src/classifiers/categories.js";
import type { TextClassifier, Verdict } from "../../src/classifiers/classifier.js";
import { createEngine } from "../../src/classifiers/engine/index.js";
import type { ModelFile } from "../../src/classifiers/model/model-file.js";

/**
 * A model whose learned heads all score about 0 ("silent"), 0.35 ("leaning": under every bar of
 * 0.5, over the half of it that phrase rules ask as support), 0.6 ("over": over every bar, not
 * sure enough to override a frame that yields to a sure head) or about 1 ("loud") on any text, so a
 * test of the lexicon rules and frames does not depend on the trained weights: with a silent
 * model whatever flags was flagged by a rule alone; with a leaning one, by a rule with the head's
 * support; with a loud one every head flags unless a frame keeps it from flagging alone.
 */
export function constantModel(level: Level): ModelFile {
  const heads: CategoryId[] = CATEGORY_IDS.filter((c) => c !== "sexual_minors");
  const dim = 2, hidden = 2, buckets = 1 << 10;
  const bias = { silent: -12, leaning: Math.log(0.35 / 0.65), over: Math.log(0.6 / 0.4), loud: 12 }[level];
  const calibration = Object.fromEntries(heads.map((c) => [c, { a: 1, b: bias }]));
  const thresholds = Object.fromEntries(CATEGORY_IDS.map((c) => [c, 0.5]));
  return {
    header: {
      format: "moderation-text-model", version: 1, id: `text-test-${level}`, family: "embedding-mlp", heads,
      hashing: { buckets, minN: 3, maxN: 5 }, window: { size: 480, stride: 240 }, calibration, thresholds,
      lexicon: { sexual: 0.7, graphicViolence: 0.7 }, params: { dim, hidden, embScale: 1 }, tensors: [], training: {},
    },
    tensors: new Map<string, Int8Array | Float32Array>([
      ["emb", new Int8Array(buckets * dim)], ["w1", new Float32Array(hidden * dim)], ["b1", new Float32Array(hidden)],
      ["w2", new Float32Array(heads.length * hidden)], ["b2", new Float32Array(heads.length)],
    ]),
  };
}

type Level = "silent" | "leaning" | "over" | "loud";

export const constantEngine = (level: Level): TextClassifier => createEngine(constantModel(level));

/** The categories a classifier flags for `text`, in category order. */
export const flaggedCategories = (classifier: TextClassifier, text: string): string[] =>
  Object.entries((classifier.classify(text) as Verdict).categories).filter(([, v]) => v?.flagged).map(([k]) => k);
