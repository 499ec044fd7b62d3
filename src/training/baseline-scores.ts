/**
 * A TypeScript family "model alone" (no lexicon, rules or frames) on one fold's rows, scored as the
 * transformer family's Python scripts score: raw logits of the fold's calibration rows and, per
 * held-out text, the maximum over its windows. Both transformer exporters use it, so the families
 * are measured by transformer-score.ts on the same rows with the same code. One network each (the
 * shipped model averages two): embedding-mlp as shipped, or conv (the bag plus a width-3
 * convolution, train-conv.ts; needs a corpus built with sequences).
 */
import type { HashingSpec } from "../classifiers/model/features.js";
import { buildModelFile } from "./build-model.js";
import type { Corpus } from "./corpus.js";
import type { Example } from "./datasets/example.js";
import { heldOutLogits } from "./heldout-calibration.js";
import { trainConv } from "./train-conv.js";
import { trainMlp, type TeacherTargets } from "./train-mlp.js";
import { rowLogits } from "./window-logits.js";
import { DEFAULT_SHAPE, learnedHeads } from "./settings.js";

export interface BaselineScores {
  /** Raw logits per calibration row, in calibRows order. */
  calib: number[][];
  /** Raw logits per distinct held-out text (max over windows). */
  heldOut: number[][];
  seconds: number;
}

export function baselineScores(
  corpus: Corpus, examples: readonly Example[], dataset: string, trainRows: Uint32Array, calibRows: Uint32Array,
  opts: { hashing: HashingSpec; window: { size: number; stride: number }; seed: number; epochs: number; teacher?: TeacherTargets; family?: "embedding-mlp" | "conv" },
): BaselineScores {
  const t0 = Date.now();
  const heads = learnedHeads();
  const shape = { heads, seed: opts.seed, epochs: opts.epochs, dim: DEFAULT_SHAPE.dim, hidden: DEFAULT_SHAPE.hidden, lr: DEFAULT_SHAPE.lr };
  const trained = opts.family === "conv"
    ? trainConv(corpus, trainRows, opts.hashing.buckets, { ...shape, filters: DEFAULT_SHAPE.filters })
    : trainMlp(corpus, trainRows, opts.hashing.buckets, { ...shape, ...(opts.teacher ? { teacher: opts.teacher } : {}) });
  const logits = new Float64Array(heads.length);
  const calib = Array.from(calibRows, (r) => {
    rowLogits(trained.scorer, corpus, r, logits);
    return Array.from(logits);
  });
  const { model } = buildModelFile({ id: `lodo-${trained.family}-${dataset}`, corpus, calibrationRows: calibRows, trained, heads, hashing: opts.hashing, window: opts.window, training: {} });
  const fl = heldOutLogits(model, examples, dataset);
  const K = heads.length;
  const heldOut = Array.from({ length: fl.rows }, (_, i) => Array.from(fl.logits.subarray(i * K, (i + 1) * K)));
  return { calib, heldOut, seconds: (Date.now() - t0) / 1000 };
}
