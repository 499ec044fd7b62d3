import { readFileSync } from "node:fs";
import type { FamilyComparison } from "./report.js";

/**
 * Merges compare.json files (train.ts --compare-only, or a family trained elsewhere on the same rows)
 * into the card's family comparison. Runs that held out the same datasets share their columns; a
 * family in several runs gets the pair-weighted mean of its selection figures.
 */
export function mergeComparisons(paths: readonly string[]): FamilyComparison {
  const runs = paths.map((p) => JSON.parse(readFileSync(p, "utf8")) as FamilyComparison);
  const out: FamilyComparison = { subsample: runs[0]!.subsample, epochs: runs[0]!.epochs, folds: [...new Set(runs.flatMap((r) => r.folds))], compare: {} };
  // A comparison carried over from an earlier model's card says whose training data it measured.
  const measuredOn = runs.map((r) => r.measuredOn).find((m) => m !== undefined);
  if (measuredOn) out.measuredOn = measuredOn;
  for (const run of runs) {
    for (const [family, r] of Object.entries(run.compare)) {
      const acc = (out.compare[family] ??= { selection: { mean: 0, pairs: 0, seconds: 0 }, pooled: {}, perDataset: [], note: r.note, baseline: r.baseline });
      const s = acc.selection!, t = r.selection;
      if (t && t.pairs > 0) {
        s.mean = (s.mean * s.pairs + t.mean * t.pairs) / (s.pairs + t.pairs);
        s.pairs += t.pairs;
      }
      s.seconds += t?.seconds ?? 0;
      acc.perDataset.push(...r.perDataset);
      // Pooled figures hold for one run's folds only: kept for a family one run measured.
      acc.pooled = runs.filter((x) => family in x.compare).length === 1 ? r.pooled : {};
    }
  }
  return out;
}
