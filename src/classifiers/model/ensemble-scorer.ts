import type { Scorer } from "./scorers.js";
import { newFloat64Array } from "./typed-slab.js";

/**
 * The mean of several scorers' logits (the same family trained from different seeds). One training
 * run's held-out figures move by about 0.01 mean AUPRC with the seed alone (docs/model-history.md,
 * session 14): averaging members trained alike removes much of that variance, which is error on
 * text unlike the training sources. Attributions are linear in the logits, so they average too.
 */
export function createEnsembleScorer(members: readonly Scorer[]): Scorer {
  if (members.length === 0) throw new Error("an ensemble needs at least one member");
  if (members.length === 1) return members[0]!;
  const heads = members[0]!.heads;
  if (members.some((m) => m.heads !== heads)) throw new Error("ensemble members must score the same heads");
  const n = members.length;
  const scratch = new Float64Array(heads);
  return {
    heads,
    logits(features, out) {
      members[0]!.logits(features, out);
      for (let k = 1; k < n; k++) {
        members[k]!.logits(features, scratch);
        for (let h = 0; h < heads; h++) out[h]! += scratch[h]!;
      }
      for (let h = 0; h < heads; h++) out[h]! /= n;
    },
    attribution(window, subset, head) {
      let total = 0;
      for (const m of members) total += m.attribution(window, subset, head);
      return total / n;
    },
    explainer(window, tf, tFrom, tTo) {
      const each = members.map((m) => m.explainer(window, tf, tFrom, tTo));
      const cache = new Map<number, Float64Array>();
      return (head) => {
        let out = cache.get(head);
        if (out) return out;
        out = newFloat64Array(tTo - tFrom);
        for (const explain of each) {
          const part = explain(head);
          for (let t = 0; t < out.length; t++) out[t]! += part[t]!;
        }
        for (let t = 0; t < out.length; t++) out[t]! /= n;
        cache.set(head, out);
        return out;
      };
    },
  };
}

/** Tensor and parameter names of member k in a model file: member 0 keeps the plain names. */
export const memberName = (name: string, k: number): string => (k === 0 ? name : `${name}.${k}`);
