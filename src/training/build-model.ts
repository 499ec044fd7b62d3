import { CATEGORY_IDS, type CategoryId } from "../classifiers/categories.js";
import type { HashingSpec } from "../classifiers/model/features.js";
import { decodeModel, encodeModel, type ModelFile, type ModelHeader } from "../classifiers/model/model-file.js";
import type { WindowSpec } from "../classifiers/model/windows.js";
import { exampleRuns, type Corpus } from "./corpus.js";
import { ruleThresholds, type HeldOutCalibration } from "./heldout-calibration.js";
import { averagePrecision, chooseThreshold, fitPlatt, type Platt, type PrPoint } from "./metrics.js";
import type { TrainedModel } from "./trainer.js";
import { rowLogits } from "./window-logits.js";

export interface HeadReport {
  category: CategoryId;
  positives: number;
  negatives: number;
  auprc: number;
  chosen: PrPoint;
}

/** Lexicon evidence thresholds (hand-set, documented in docs/model-history.md and rules/lexicon/terms.ts). */
const LEXICON_THRESHOLDS = { sexual: 0.7, graphicViolence: 0.7 };

/**
 * Calibrates each learned head on the calibration rows (Platt), chooses its flag threshold there
 * (best F1), and packs everything into a model file. Rule-based categories get fixed thresholds.
 */
export function buildModelFile(args: {
  id: string;
  corpus: Corpus;
  calibrationRows: Uint32Array;
  trained: TrainedModel;
  heads: number[];
  hashing: HashingSpec;
  window: WindowSpec;
  training: Record<string, unknown>;
  /**
   * "window" (default): every calibration row is one point, each window of a long text with the
   * text's label; "example": one point per text, its windows' highest logit per head, as the engine
   * scores a long text (its worst window).
   */
  calibrateBy?: CalibrateBy;
  /** Held-out-dataset calibration and thresholds that replace the random-split ones per head. */
  overrides?: Pick<HeldOutCalibration, "calibration" | "thresholds"> | undefined;
}): { model: ModelFile; bytes: Buffer; reports: HeadReport[] } {
  const { corpus, calibrationRows, trained, heads } = args;
  const H = CATEGORY_IDS.length;
  const K = heads.length;
  const logits = new Float64Array(K);
  const perHead = heads.map(() => ({ x: [] as number[], y: [] as number[], w: [] as number[] }));
  for (const group of (args.calibrateBy === "example" ? exampleRuns(corpus, calibrationRows) : Array.from(calibrationRows, (r) => Uint32Array.of(r)))) {
    const r = group[0]!;
    maxLogits(trained.scorer, corpus, group, logits);
    heads.forEach((c, h) => {
      const l = corpus.labels[r * H + c]!;
      if (l < 0) return;
      perHead[h]!.x.push(logits[h]!);
      perHead[h]!.y.push(l);
      perHead[h]!.w.push(corpus.weight[r]!);
    });
  }
  const calibration: Partial<Record<CategoryId, Platt>> = {};
  const thresholds: Partial<Record<CategoryId, number>> = {};
  const reports: HeadReport[] = [];
  heads.forEach((c, h) => {
    const cat = CATEGORY_IDS[c]!;
    const { x, y, w } = perHead[h]!;
    const platt = fitPlatt(x, y, w);
    calibration[cat] = platt;
    const s = x.map((v) => 1 / (1 + Math.exp(-(platt.a * v + platt.b))));
    const chosen = chooseThreshold(s, y, w, undefined, FLAT_F1_WITHIN);
    // Too few held-out positives to choose on: stay conservative with a fixed bar.
    thresholds[cat] = y.filter((v) => v === 1).length >= 10 ? Math.min(0.9, Math.max(0.3, chosen.threshold)) : 0.5;
    reports.push({ category: cat, positives: y.filter((v) => v === 1).length, negatives: y.filter((v) => v === 0).length, auprc: averagePrecision(s, y), chosen });
  });
  thresholds.self_harm_instructions ??= 0.5;
  Object.assign(calibration, args.overrides?.calibration ?? {});
  Object.assign(thresholds, args.overrides?.thresholds ?? {});
  // Rule-derived: sexual_minors flags when sexual evidence passes a lower bar and a minor is indicated.
  Object.assign(thresholds, ruleThresholds(thresholds));
  const header: Omit<ModelHeader, "tensors"> = {
    format: "moderation-text-model",
    version: 1,
    id: args.id,
    family: trained.family,
    heads: heads.map((c) => CATEGORY_IDS[c]!),
    hashing: args.hashing,
    window: args.window,
    calibration,
    thresholds,
    lexicon: LEXICON_THRESHOLDS,
    params: trained.params,
    training: args.training,
  };
  const bytes = encodeModel(header, trained.tensors);
  return { model: decodeModel(bytes), bytes, reports };
}

export type CalibrateBy = "window" | "example";

/** Per head, the highest raw logit over a group of rows. */
function maxLogits(scorer: TrainedModel["scorer"], corpus: Corpus, group: Uint32Array, out: Float64Array): void {
  rowLogits(scorer, corpus, group[0]!, out);
  if (group.length === 1) return;
  const next = new Float64Array(out.length);
  for (let j = 1; j < group.length; j++) {
    rowLogits(scorer, corpus, group[j]!, next);
    for (let h = 0; h < out.length; h++) if (next[h]! > out[h]!) out[h] = next[h]!;
  }
}

/** Best-F1 thresholds take the highest bar whose F1 is within this of the best (see chooseThreshold). */
const FLAT_F1_WITHIN = 0.01;
