import { createEnsembleScorer, memberHeadWeightsOf, memberName } from "../classifiers/model/ensemble-scorer.js";
import { CATEGORY_IDS } from "../classifiers/categories.js";
import type { Corpus } from "./corpus.js";
import type { TrainedModel } from "./trainer.js";

/** Member k's training seed: member 0 trains from the run's seed, so one member is the single model. */
export const memberSeed = (seed: number, k: number): number => (seed + 1_000_003 * k) >>> 0;

/**
 * Several models of one family as one model file: member 0's tensors and params under their plain
 * names, member k's as `name.k` (ensemble-scorer.ts memberName), `members` = how many. The engine
 * averages their logits; calibration and thresholds are then fitted on the average. With
 * `headWeights` (members x heads), each head's logit is the members' weighted mean instead, stored as
 * the `memberHeads` tensor: an expert member counts for its heads only (train.ts --expert).
 */
export function ensembleOf(members: readonly TrainedModel[], headWeights?: readonly (readonly number[])[]): TrainedModel {
  if (members.length === 1 && !headWeights) return members[0]!;
  const first = members[0]!;
  if (members.some((m) => m.family !== first.family)) throw new Error("ensemble members must be of one family");
  const tensors: TrainedModel["tensors"] = {};
  const params: TrainedModel["params"] = { ...first.params, members: members.length };
  members.forEach((m, k) => {
    for (const [name, t] of Object.entries(m.tensors)) tensors[memberName(name, k)] = t;
    if (k > 0) for (const [name, v] of Object.entries(m.params)) if (v !== first.params[name]) params[memberName(name, k)] = v;
  });
  // Per-head weights (one row per member) go in the file as they are; the engine normalises them.
  const raw = headWeights && Float32Array.from(headWeights.flat());
  if (raw) tensors["memberHeads"] = raw;
  const weights = memberHeadWeightsOf(raw, members.length, first.scorer.heads);
  return { family: first.family, tensors, params, scorer: createEnsembleScorer(members.map((m) => m.scorer), weights) };
}

/**
 * One more member trained on some datasets' rows only and counted for some heads only (train.ts
 * --expert "DATASETS:HEADS:WEIGHT"): WEIGHT is in members, so 4 beside four members is half of each
 * listed head's logit; the other heads do not count it.
 */
export interface ExpertSpec {
  datasets: string[];
  /** Category indices (into CATEGORY_IDS) the expert counts for. */
  heads: Set<number>;
  weight: number;
}

/** --expert's value read and checked; undefined when absent or "none" (no expert). */
export function parseExpert(spec: string | undefined, learned: readonly number[]): ExpertSpec | undefined {
  if (spec === undefined || spec === "none") return undefined;
  const [datasets = "", names = "", weight = ""] = spec.split(":");
  const w = Number(weight);
  if (!datasets || !names || !(w > 0)) throw new Error(`--expert must be DATASETS:HEADS:WEIGHT (weight > 0); got "${spec}"`);
  const heads = new Set(names.split(",").map((name) => {
    const i = (CATEGORY_IDS as readonly string[]).indexOf(name.trim());
    if (i < 0 || !learned.includes(i)) throw new Error(`--expert: "${name}" is not a learned head`);
    return i;
  }));
  return { datasets: datasets.split(",").map((d) => d.trim()), heads, weight: w };
}

/** The expert's training rows: those of `rows` from its datasets. */
export function expertRows(corpus: Corpus, rows: Uint32Array, spec: ExpertSpec): Uint32Array {
  const own = new Set(spec.datasets.map((d) => corpus.datasets.indexOf(d)));
  return rows.filter((r) => own.has(corpus.dataset[r]!));
}

/** The members and the expert as one model: every member counts 1 for every head, the expert `weight` for its heads. */
export function withExpert(members: readonly TrainedModel[], expert: TrainedModel, heads: readonly number[], spec: ExpertSpec): TrainedModel {
  return ensembleOf([...members, expert], [...members.map(() => heads.map(() => 1)), heads.map((h) => (spec.heads.has(h) ? spec.weight : 0))]);
}
