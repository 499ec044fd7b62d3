import { createEnsembleScorer, memberName } from "../classifiers/model/ensemble-scorer.js";
import type { TrainedModel } from "./trainer.js";

/** Member k's training seed: member 0 trains from the run's seed, so one member is the single model. */
export const memberSeed = (seed: number, k: number): number => (seed + 1_000_003 * k) >>> 0;

/**
 * Several models of one family as one model file: member 0's tensors and params under their plain
 * names, member k's as `name.k` (ensemble-scorer.ts memberName), `members` = how many. The engine
 * averages their logits; calibration and thresholds are then fitted on the average.
 */
export function ensembleOf(members: readonly TrainedModel[]): TrainedModel {
  if (members.length === 1) return members[0]!;
  const first = members[0]!;
  if (members.some((m) => m.family !== first.family)) throw new Error("ensemble members must be of one family");
  const tensors: TrainedModel["tensors"] = {};
  const params: TrainedModel["params"] = { ...first.params, members: members.length };
  members.forEach((m, k) => {
    for (const [name, t] of Object.entries(m.tensors)) tensors[memberName(name, k)] = t;
    if (k > 0) for (const [name, v] of Object.entries(m.params)) if (v !== first.params[name]) params[memberName(name, k)] = v;
  });
  return { family: first.family, tensors, params, scorer: createEnsembleScorer(members.map((m) => m.scorer)) };
}
