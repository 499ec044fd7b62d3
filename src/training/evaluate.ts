import { CATEGORY_IDS, type CategoryId } from "../classifiers/categories.js";
import { createEngine } from "../classifiers/engine/engine.js";
import type { ModelFile } from "../classifiers/model/model-file.js";
import type { Example } from "./datasets/example.js";
import { averagePrecision } from "./metrics.js";
import { normalizeForMatching } from "../classifiers/normalize/normalize.js";

/** Held-out predictions of the full classifier (windows, lexicon, rules) on one dataset's rows. */
export interface HeldOut {
  dataset: string;
  family: string;
  /** Per category: calibrated score, label (0/1) and flag, for rows whose label is known. */
  byCategory: Partial<Record<CategoryId, { s: number[]; y: number[]; f: boolean[] }>>;
  /** Benign rows (all labels 0) and how many of them got any flag. */
  benign: number;
  benignFlagged: number;
  /** Benign rows per slice (e.g. hatecheck functionality), for the look-alike table. */
  slices: Record<string, { benign: number; flagged: number }>;
  /** Benign rows flagged, per category (a row flagged in two categories counts in both). */
  benignByCategory: Partial<Record<CategoryId, number>>;
  /**
   * Category separation: for rows positive for category `pos`, the summed score of each other
   * category `head` (only rows not also positive for `head`), and the row count. "benign" = rows
   * negative for everything.
   */
  confusion: Record<string, Partial<Record<CategoryId, { sum: number; n: number }>>>;
  /**
   * Unsafe vs safe, scored by the highest category score (how an outside evaluator reads one
   * verdict): y = 1 when any category is positive, 0 when none is and at least one is known negative.
   */
  anyHarm?: { s: number[]; y: number[] };
  /** Safe rows (positive for nothing, one known negative, e.g. a forum's neutral posts) and how many got any flag. */
  safe?: number;
  safeFlagged?: number;
  /** Safe rows flagged, per category (which head or rule flags a corpus's neutral posts). */
  safeByCategory?: Partial<Record<CategoryId, number>>;
}

/** Adds one to each category the verdict flagged (a row flagged in two categories counts in both). */
function countFlags(counts: Partial<Record<CategoryId, number>>, categories: Partial<Record<CategoryId, { flagged: boolean }>>): void {
  for (const c of CATEGORY_IDS) if (categories[c]?.flagged) counts[c] = (counts[c] ?? 0) + 1;
}

export function scoreHeldOut(model: ModelFile, examples: readonly Example[], dataset: string): HeldOut {
  const engine = createEngine(model);
  const anyHarm = { s: [] as number[], y: [] as number[] };
  const out: HeldOut = { dataset, family: model.header.family, byCategory: {}, benign: 0, benignFlagged: 0, slices: {}, benignByCategory: {}, confusion: {}, anyHarm };
  const seen = new Set<string>();
  for (const e of examples) {
    if (e.dataset !== dataset || seen.has(e.text)) continue;
    seen.add(e.text);
    const v = engine.classify(e.text) as ReturnType<typeof engine.classify> & { categories: Record<string, { score: number; flagged: boolean }> };
    let anyFlag = false;
    let allZero = true;
    let anyPositive = false;
    let anyNegative = false;
    let top = 0;
    CATEGORY_IDS.forEach((c, i) => {
      const verdict = v.categories[c];
      if (verdict?.flagged) anyFlag = true;
      const l = e.labels[i]!;
      if (l !== 0) allZero = false;
      if (l === 1) anyPositive = true;
      if (l === 0) anyNegative = true;
      if ((verdict?.score ?? 0) > top) top = verdict!.score;
      if (l < 0 || !verdict) return;
      const bucket = (out.byCategory[c] ??= { s: [], y: [], f: [] });
      bucket.s.push(verdict.score);
      bucket.y.push(l);
      bucket.f.push(verdict.flagged);
    });
    const confused = (pos: string, skip: (i: number) => boolean): void => {
      const row = (out.confusion[pos] ??= {});
      CATEGORY_IDS.forEach((h, i) => {
        if (skip(i)) return;
        const cell = (row[h] ??= { sum: 0, n: 0 });
        cell.sum += v.categories[h]?.score ?? 0;
        cell.n++;
      });
    };
    CATEGORY_IDS.forEach((c, i) => {
      if (e.labels[i] === 1) confused(c, (j) => j !== i && e.labels[j] === 1);
    });
    if (anyPositive || anyNegative) {
      anyHarm.s.push(top);
      anyHarm.y.push(anyPositive ? 1 : 0);
    }
    if (!anyPositive && anyNegative) {
      out.safe = (out.safe ?? 0) + 1;
      if (anyFlag) out.safeFlagged = (out.safeFlagged ?? 0) + 1;
      countFlags((out.safeByCategory ??= {}), v.categories);
    }
    if (allZero) confused("benign", () => false);
    if (allZero) {
      out.benign++;
      if (anyFlag) out.benignFlagged++;
      countFlags(out.benignByCategory, v.categories);
      const sl = (out.slices[e.slice] ??= { benign: 0, flagged: 0 });
      sl.benign++;
      if (anyFlag) sl.flagged++;
    }
  }
  return out;
}

export interface CategorySummary {
  positives: number;
  negatives: number;
  auprc: number;
  precision: number;
  recall: number;
  fpr: number;
}

/** Pools held-out predictions (each dataset scored by a model that never saw it) per category. */
export function summarize(results: readonly HeldOut[]): Partial<Record<CategoryId, CategorySummary>> {
  const out: Partial<Record<CategoryId, CategorySummary>> = {};
  for (const c of CATEGORY_IDS) {
    const s: number[] = [], y: number[] = [], f: boolean[] = [];
    for (const r of results) {
      const b = r.byCategory[c];
      if (!b) continue;
      s.push(...b.s);
      y.push(...b.y);
      f.push(...b.f);
    }
    const pos = y.filter((v) => v === 1).length;
    if (pos === 0) continue;
    let tp = 0, fp = 0;
    y.forEach((v, i) => { if (f[i]) (v === 1 ? tp++ : fp++); });
    const neg = y.length - pos;
    out[c] = { positives: pos, negatives: neg, auprc: averagePrecision(s, y), precision: tp + fp > 0 ? tp / (tp + fp) : NaN, recall: tp / pos, fpr: neg > 0 ? fp / neg : NaN };
  }
  return out;
}

/** AUPRC of unsafe vs safe by the highest category score, pooled over `results`; undefined under 10 of either. */
export function anyHarmAuprc(results: readonly HeldOut[]): { auprc: number; positives: number; negatives: number } | undefined {
  const s = results.flatMap((r) => r.anyHarm?.s ?? []);
  const y = results.flatMap((r) => r.anyHarm?.y ?? []);
  const positives = y.filter((v) => v === 1).length;
  if (positives < 10 || y.length - positives < 10) return undefined;
  return { auprc: averagePrecision(s, y), positives, negatives: y.length - positives };
}

/** Mean score of each head on each category's positives (and benign rows), pooled over held-out datasets. */
export function confusionTable(results: readonly HeldOut[]): Record<string, Partial<Record<CategoryId, { mean: number; n: number }>>> {
  const pooled: Record<string, Partial<Record<CategoryId, { sum: number; n: number }>>> = {};
  for (const r of results) {
    for (const [pos, row] of Object.entries(r.confusion ?? {})) {
      for (const [h, cell] of Object.entries(row) as [CategoryId, { sum: number; n: number }][]) {
        const acc = ((pooled[pos] ??= {})[h] ??= { sum: 0, n: 0 });
        acc.sum += cell.sum;
        acc.n += cell.n;
      }
    }
  }
  return Object.fromEntries(Object.entries(pooled).map(([pos, row]) => [pos, Object.fromEntries(Object.entries(row).map(([h, c]) => [h, { mean: c.n > 0 ? c.sum / c.n : NaN, n: c.n }]))]));
}

/** Mean AUPRC over (dataset, category) pairs with enough of both classes: the model-selection figure. */
export function meanFoldAuprc(results: readonly HeldOut[], minEach = 10): { mean: number; pairs: number } {
  let sum = 0, n = 0;
  for (const r of results) {
    for (const b of Object.values(r.byCategory)) {
      const pos = b.y.filter((v) => v === 1).length;
      if (pos < minEach || b.y.length - pos < minEach) continue;
      sum += averagePrecision(b.s, b.y);
      n++;
    }
  }
  return { mean: n > 0 ? sum / n : NaN, pairs: n };
}

/** The shipped model on one dataset's calibration-split texts (see inDomain). */
export interface InDomain {
  dataset: string;
  categories: Partial<Record<CategoryId, CategorySummary>>;
  safe: number;
  safeFlagged: number;
}

/**
 * Expert-labelled real traffic (CAD) in domain: its calibration-split posts, which the shipped model
 * never trained on, from the threads it did. Leave-one-dataset-out cannot show what training on a
 * dataset adds to text like it (its own fold never sees it); this is the nearest measure to a
 * caller's own Reddit-like traffic. Figures from two seeds differ in their posts, not only their model.
 */
export function inDomain(model: ModelFile, examples: readonly Example[], inCalibration: (normalized: string) => boolean, dataset = "cad-reddit-abuse"): InDomain | undefined {
  const rows = examples.filter((e) => e.dataset === dataset && inCalibration(normalizeForMatching(e.text)));
  if (rows.length === 0) return undefined;
  const r = scoreHeldOut(model, rows, dataset);
  return { dataset, categories: summarize([r]), safe: r.safe ?? 0, safeFlagged: r.safeFlagged ?? 0 };
}

/**
 * The separation table on the random calibration split (texts the shipped model did not train on,
 * from every dataset, so every category has positives): the full classifier's mean score of each
 * category on each category's positives. At most `cap` positives per category and `cap` benign rows
 * (first in dataset order), so it stays cheap. In-distribution, unlike the held-out table.
 */
export function calibrationSplitConfusion(model: ModelFile, examples: readonly Example[], inCalibration: (normalized: string) => boolean, cap = 300): HeldOut["confusion"] {
  const picked: Example[] = [];
  const taken = new Map<string, number>();
  const seen = new Set<string>();
  for (const e of examples) {
    const norm = normalizeForMatching(e.text);
    if (seen.has(norm) || !inCalibration(norm)) continue;
    const keys = CATEGORY_IDS.filter((_, i) => e.labels[i] === 1) as string[];
    if (keys.length === 0 && e.labels.every((v) => v === 0)) keys.push("benign");
    if (!keys.some((k) => (taken.get(k) ?? 0) < cap)) continue;
    seen.add(norm);
    for (const k of keys) taken.set(k, (taken.get(k) ?? 0) + 1);
    picked.push({ ...e, dataset: "calibration-split" });
  }
  return scoreHeldOut(model, picked, "calibration-split").confusion;
}
