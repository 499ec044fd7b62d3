import type { Scorer } from "./scorers.js";
import { newFloat64Array } from "./typed-slab.js";

/**
 * How much each member counts for each head, members × heads, each head's column summing to 1, or
 * undefined for the plain mean. A member can be an expert for some heads only (trained on one
 * source's text, weight 0 for the heads it was not trained to judge): train.ts --expert.
 */
export type MemberHeadWeights = Float64Array | undefined;

/**
 * The mean of several scorers' logits (the same family trained from different seeds). One training
 * run's held-out figures move by about 0.01 mean AUPRC with the seed alone (docs/model-history.md,
 * session 14): averaging members trained alike removes much of that variance, which is error on
 * text unlike the training sources. Attributions are linear in the logits, so they average too.
 * With `weights`, each head's logit is its members' weighted mean instead (memberHeadWeightsOf).
 */
export function createEnsembleScorer(members: readonly Scorer[], weights?: MemberHeadWeights): Scorer {
  if (members.length === 0) throw new Error("an ensemble needs at least one member");
  if (members.length === 1 && !weights) return members[0]!;
  const heads = members[0]!.heads;
  if (members.some((m) => m.heads !== heads)) throw new Error("ensemble members must score the same heads");
  const n = members.length;
  const combine = memberCombiner(n, heads, weights);
  const scratch = new Float64Array(heads);
  return {
    heads,
    logits(features, out) {
      members[0]!.logits(features, out);
      combine.start(out);
      for (let k = 1; k < n; k++) {
        members[k]!.logits(features, scratch);
        combine.add(out, scratch, k);
      }
      combine.finish(out);
    },
    attribution(window, subset, head) {
      let total = 0;
      members.forEach((m, k) => { if (combine.weight(k, head) !== 0) total += combine.weight(k, head) * m.attribution(window, subset, head); });
      return total / combine.divisor;
    },
    explainer(window, tf, tFrom, tTo) {
      const each = members.map((m) => m.explainer(window, tf, tFrom, tTo));
      const cache = new Map<number, Float64Array>();
      return (head) => {
        let out = cache.get(head);
        if (out) return out;
        out = newFloat64Array(tTo - tFrom);
        each.forEach((explain, k) => {
          const w = combine.weight(k, head);
          if (w === 0) return;
          const part = explain(head);
          for (let t = 0; t < out!.length; t++) out![t]! += w * part[t]!;
        });
        if (combine.divisor !== 1) for (let t = 0; t < out.length; t++) out[t]! /= combine.divisor;
        cache.set(head, out);
        return out;
      };
    },
  };
}

/**
 * Folds members' logits into `out`, member 0's first (start), each next one (add), then the mean
 * (finish). Without weights it sums and divides by n, as every model before per-head weights was
 * scored, so their scores stay the same to the bit.
 */
export interface MemberCombiner {
  start(out: Float64Array): void;
  add(out: Float64Array, member: Float64Array, k: number): void;
  finish(out: Float64Array): void;
  /** Member k's weight in head h's logit, before the division by `divisor` (n, or 1 with weights). */
  weight(k: number, h: number): number;
  divisor: number;
}

export function memberCombiner(n: number, heads: number, weights: MemberHeadWeights): MemberCombiner {
  if (!weights) {
    return {
      start() {},
      add(out, member) { for (let h = 0; h < heads; h++) out[h]! += member[h]!; },
      finish(out) { for (let h = 0; h < heads; h++) out[h]! /= n; },
      weight: () => 1,
      divisor: n,
    };
  }
  if (weights.length !== n * heads) throw new Error(`member weights: ${weights.length} values for ${n} members x ${heads} heads`);
  return {
    start(out) { for (let h = 0; h < heads; h++) out[h]! *= weights[h]!; },
    add(out, member, k) { for (let h = 0; h < heads; h++) out[h]! += weights[k * heads + h]! * member[h]!; },
    finish() {},
    weight: (k, h) => weights[k * heads + h]!,
    divisor: 1,
  };
}

/**
 * A model file's `memberHeads` tensor (members × heads, any non-negative weights) as shares that
 * sum to 1 per head. A head no member counts for is an error: it would score nothing.
 */
export function memberHeadWeightsOf(raw: Float32Array | undefined, n: number, heads: number): MemberHeadWeights {
  if (!raw) return undefined;
  if (raw.length !== n * heads) throw new Error(`memberHeads holds ${raw.length} values; ${n} members x ${heads} heads need ${n * heads}`);
  const out = new Float64Array(raw.length);
  for (let h = 0; h < heads; h++) {
    let total = 0;
    for (let k = 0; k < n; k++) {
      const w = raw[k * heads + h]!;
      if (!(w >= 0)) throw new Error(`memberHeads: member ${k}, head ${h} has weight ${w}`);
      total += w;
    }
    if (!(total > 0)) throw new Error(`memberHeads: no member counts for head ${h}`);
    for (let k = 0; k < n; k++) out[k * heads + h] = raw[k * heads + h]! / total;
  }
  return out;
}

/** Tensor and parameter names of member k in a model file: member 0 keeps the plain names. */
export const memberName = (name: string, k: number): string => (k === 0 ? name : `${name}.${k}`);
