import { CATEGORY_IDS, type CategoryId } from "../classifiers/categories.js";
import { normalizeForMatching } from "../classifiers/normalize/normalize.js";
import { scorerOf } from "../classifiers/engine/engine.js";
import { windowLogits } from "./window-logits.js";
import type { ModelFile } from "../classifiers/model/model-file.js";
import { windowsOf } from "../classifiers/model/windows.js";
import type { Example } from "./datasets/example.js";
import { averagePrecision, chooseThreshold, fitPlatt, type Platt, type PrPoint } from "./metrics.js";

/**
 * Calibration and thresholds for generalisation to unseen sources. Random-split calibration rows
 * are near-copies of training rows (templated sets, one author's posts), so Platt scaling fitted
 * there is overconfident and thresholds chosen there do not transfer. Instead, each head is
 * calibrated and thresholded on the raw logits that leave-one-dataset-out models gave the rows of
 * the dataset they never saw.
 */
export interface FoldLogits {
  dataset: string;
  /** Heads of the fold model, in logit order. */
  heads: CategoryId[];
  rows: number;
  /** rows x heads raw logits, max-pooled over windows (as the engine pools calibrated scores). */
  logits: Float64Array;
  /** rows x CATEGORY_IDS labels (-1 unknown). */
  labels: Int8Array;
  /** The fold model's own (random-split) calibration per head. */
  platt: Partial<Record<CategoryId, Platt>>;
}

/** Raw per-head logits of a fold model on the rows of the dataset it never saw (deduplicated as in scoreHeldOut). */
export function heldOutLogits(model: ModelFile, examples: readonly Example[], dataset: string): FoldLogits {
  const scorer = scorerOf(model);
  const { header } = model;
  const K = header.heads.length;
  const H = CATEGORY_IDS.length;
  const seen = new Set<string>();
  const logits: number[] = [];
  const labels: number[] = [];
  const out = new Float64Array(K);
  const best = new Float64Array(K);
  for (const e of examples) {
    if (e.dataset !== dataset || seen.has(e.text)) continue;
    seen.add(e.text);
    const norm = normalizeForMatching(e.text);
    best.fill(-Infinity);
    for (const w of windowsOf(norm, header.window)) {
      windowLogits(scorer, norm, header.hashing, w.from, w.to, out);
      for (let k = 0; k < K; k++) if (out[k]! > best[k]!) best[k] = out[k]!;
    }
    for (let k = 0; k < K; k++) logits.push(best[k]!);
    for (let c = 0; c < H; c++) labels.push(e.labels[c]!);
  }
  return { dataset, heads: header.heads, rows: seen.size, logits: Float64Array.from(logits), labels: Int8Array.from(labels), platt: header.calibration };
}

export interface HeldOutHeadReport {
  category: CategoryId;
  datasets: string[];
  positives: number;
  negatives: number;
  auprc: number;
  platt?: Platt | undefined;
  chosen: PrPoint;
  /** Benign held-out rows available to the guard, and the guard threshold itself. */
  benign: number;
  guard: number;
  /** Operating points on the pooled held-out scores: pick a lower threshold for more recall. */
  curve: { threshold: number; precision: number; recall: number; fpr: number; benignFpr: number }[];
}

export interface HeldOutCalibration {
  calibration: Partial<Record<CategoryId, Platt>>;
  thresholds: Partial<Record<CategoryId, number>>;
  /** Rule support bars, when the flags use a stricter guard than the rules' support (fitFlagsAndSupport). */
  supportThresholds?: Partial<Record<CategoryId, number>>;
  /** "floor": thresholds only raise the model's own random-split thresholds (the benign guard). */
  mode?: "replace" | "floor";
  reports: HeldOutHeadReport[];
}

/** Heads need this many held-out positives and negatives (pooled over folds) to be calibrated here. */
const MIN_HELD_OUT = 30;
/** Thresholds are clamped: below 0.1 a head flags on noise, above 0.9 it never flags on unseen data. */
const THRESHOLD_RANGE = [0.1, 0.9] as const;

/**
 * Pools the folds' held-out logits per head, fits Platt scaling on them and picks the best-F1
 * threshold on the calibrated scores. Heads without enough held-out data of both classes are left
 * out (the caller keeps their random-split calibration and the conservative threshold).
 */
export function fitHeldOutCalibration(folds: readonly FoldLogits[], opts: { maxFpr: number; refit?: boolean; guardOnly?: boolean; guardRows?: GuardRows } = { maxFpr: DEFAULT_MAX_FPR }): HeldOutCalibration {
  const safeRows = opts.guardRows === "safe";
  const H = CATEGORY_IDS.length;
  const result: HeldOutCalibration = { calibration: {}, thresholds: {}, reports: [], mode: opts.guardOnly ? "floor" : "replace" };
  const heads = folds[0]?.heads ?? [];
  heads.forEach((cat, k) => {
    const c = CATEGORY_IDS.indexOf(cat);
    const x: number[] = [];
    const y: number[] = [];
    const benign: boolean[] = [];
    const used = new Set<string>();
    for (const f of folds) {
      const K = f.heads.length;
      for (let r = 0; r < f.rows; r++) {
        const l = f.labels[r * H + c]!;
        if (l < 0) continue;
        const raw = f.logits[r * K + k]!;
        // Without refit, each fold's own calibration maps its logits to its (comparable) scores.
        const own = f.platt[cat] ?? { a: 1, b: 0 };
        x.push(opts.refit ? raw : 1 / (1 + Math.exp(-(own.a * raw + own.b))));
        y.push(l);
        let allZero = true;
        let anyPositive = false;
        for (let q = 0; q < H; q++) {
          if (f.labels[r * H + q] !== 0) allZero = false;
          if (f.labels[r * H + q] === 1) anyPositive = true;
        }
        benign.push(safeRows ? !anyPositive && l === 0 : allZero);
        used.add(f.dataset);
      }
    }
    const pos = y.filter((v) => v === 1).length;
    const neg = y.length - pos;
    if (pos < MIN_HELD_OUT || neg < MIN_HELD_OUT) return;
    // Each fold contributes both classes only for some heads; a head calibrated on one dataset's
    // positives and another's negatives still ranks by the same logit, so the fit stays monotonic.
    let platt: Platt | undefined;
    let s = x;
    if (opts.refit) {
      platt = fitPlatt(x, y);
      // fitPlatt falls back to identity when held-out logits rank backwards: keep the random-split fit.
      if (platt.a === 1 && platt.b === 0) return;
      const p = platt;
      s = x.map((v) => 1 / (1 + Math.exp(-(p.a * v + p.b))));
    }
    const best = chooseThreshold(s, y, undefined, THRESHOLD_RANGE[0]);
    // Best F1, but never a bar that flags more than maxFpr of the held-out benign rows (the benign
    // look-alike sets: a user sees the sum of the heads' false positives). Other negatives (e.g. a
    // hate corpus's "not hate" posts, which can still be abusive) only count through F1.
    const bs = s.filter((_, i) => benign[i]);
    const guard = bs.length >= MIN_HELD_OUT ? thresholdForFpr(bs, bs.map(() => 0), opts.maxFpr) : 0;
    const threshold = opts.guardOnly ? Math.min(THRESHOLD_RANGE[1], guard) : Math.min(THRESHOLD_RANGE[1], Math.max(THRESHOLD_RANGE[0], best.threshold, guard));
    const chosen = pointAt(s, y, threshold);
    if (platt) result.calibration[cat] = platt;
    result.thresholds[cat] = threshold;
    const curve = CURVE_AT.map((t) => {
      const p = pointAt(s, y, t);
      let fp = 0;
      for (let i = 0; i < s.length; i++) if (y[i] === 0 && s[i]! >= t) fp++;
      return { threshold: t, precision: p.precision, recall: p.recall, fpr: neg > 0 ? fp / neg : 0, benignFpr: bs.length > 0 ? bs.filter((v) => v >= t).length / bs.length : 0 };
    });
    result.reports.push({ category: cat, datasets: [...used].sort(), positives: pos, negatives: neg, auprc: averagePrecision(s, y), platt, chosen, benign: bs.length, guard, curve });
  });
  return result;
}

/**
 * Rows the benign guard bounds: "benign" = rows negative for every category (look-alike sets);
 * "safe" = rows positive for nothing and negative for the head (also a Reddit or forum corpus's
 * neutral posts, which say nothing about sexual content or self-harm).
 */
export type GuardRows = "benign" | "safe";

const CURVE_AT = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];

/** Default cap on a head's false-positive rate over the pooled held-out negatives. */
export const DEFAULT_MAX_FPR = 0.1;

/** The lowest threshold (among the scores) whose false-positive rate is at most maxFpr. */
export function thresholdForFpr(s: readonly number[], y: readonly number[], maxFpr: number): number {
  const negs = s.filter((_, i) => y[i] !== 1).sort((a, b) => b - a);
  if (negs.length === 0) return 0;
  const allowed = Math.floor(negs.length * maxFpr);
  // Flag only scores strictly above the (allowed+1)-th highest negative score.
  const bar = negs[Math.min(allowed, negs.length - 1)]!;
  return bar + 1e-9;
}

/** Precision, recall and F1 when flagging scores >= threshold. */
function pointAt(s: readonly number[], y: readonly number[], threshold: number): PrPoint {
  let tp = 0, fp = 0, pos = 0;
  for (let i = 0; i < s.length; i++) {
    if (y[i] === 1) pos++;
    if (s[i]! >= threshold) (y[i] === 1 ? tp++ : fp++);
  }
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = pos > 0 ? tp / pos : 0;
  return { threshold, precision, recall, f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0 };
}

/** Rule thresholds that follow the learned ones (see build-model.ts). */
export function ruleThresholds(thresholds: Partial<Record<CategoryId, number>>): Partial<Record<CategoryId, number>> {
  return { ...thresholds, sexual_minors: Math.min(0.5, (thresholds.sexual ?? 0.5) * 0.6), self_harm_instructions: thresholds.self_harm_instructions ?? 0.5 };
}

/**
 * Flags held to a stricter budget than the rules' support: the flag thresholds bound the share of
 * held-out safe rows (positive for nothing, negative for the head) a head flags at `maxFpr`, while
 * the bars the rules read as the head's support stay where the benign look-alike guard at
 * DEFAULT_MAX_FPR puts them. Raising the support bars with the flags cost harassment 0.023
 * held-out AUPRC (fewer insults said of someone else found), for no fewer false flags.
 */
export function fitFlagsAndSupport(folds: readonly FoldLogits[], opts: { maxFpr: number; refit?: boolean; guardOnly?: boolean; guardRows?: GuardRows }): HeldOutCalibration {
  const flags = fitHeldOutCalibration(folds, opts);
  if (opts.guardRows !== "safe") return flags;
  const support = fitHeldOutCalibration(folds, { ...opts, guardRows: "benign", maxFpr: DEFAULT_MAX_FPR });
  return { ...flags, supportThresholds: support.thresholds };
}

/** The same weights with held-out calibration and thresholds swapped in (heads not covered keep theirs). */
export function withCalibration(model: ModelFile, cal: Pick<HeldOutCalibration, "calibration" | "thresholds" | "mode" | "supportThresholds">): ModelFile {
  const { header } = model;
  const merged = (held: Partial<Record<CategoryId, number>>): Partial<Record<CategoryId, number>> => {
    const thresholds = { ...header.thresholds };
    for (const [c, t] of Object.entries(held) as [CategoryId, number][]) thresholds[c] = cal.mode === "floor" ? Math.max(thresholds[c] ?? 0.5, t) : t;
    return ruleThresholds(thresholds);
  };
  return {
    tensors: model.tensors,
    header: {
      ...header,
      calibration: { ...header.calibration, ...cal.calibration },
      thresholds: merged(cal.thresholds),
      ...(cal.supportThresholds ? { supportThresholds: merged(cal.supportThresholds) } : {}),
    },
  };
}
