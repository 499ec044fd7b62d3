/**
 * The rule ledger's decision rule (rule-ledger.ts), apart so it can be tested: whether a rule family
 * or frame pays for itself on the held-out datasets, and, where they cannot see it, whether the
 * acceptance sentences (acceptance-sentences.ts) still need it.
 */

/** Pooled AUPRC changes smaller than this are no measurable effect. */
export const AUPRC_STEP = 0.001;
/** Benign false-positive rate changes smaller than this (a share) are no measurable effect. */
export const FPR_STEP = 0.0005;

/**
 * `gain`: the family's categories' pooled AUPRC with it minus without; `fprCost`: the benign
 * false-positive rate with it minus without; `acceptanceFailed`: acceptance sentences the shipped
 * model fails with it switched off. The held-out sets hold few of the styles some families exist
 * for (direct threats, image prompts, nudity idioms, support said of a group), so a family they
 * score as no effect, or as a cost, is kept only while a hand-written sentence fails without it;
 * otherwise it is a deletion candidate.
 */
export function ledgerVerdict(gain: number, fprCost: number, acceptanceFailed: number): string {
  const datasets = datasetVerdict(gain, fprCost);
  if (datasets !== "no measurable effect" && datasets !== "costs") return datasets;
  if (acceptanceFailed > 0) return `${datasets}; kept for acceptance`;
  return `${datasets}: delete`;
}

function datasetVerdict(gain: number, fprCost: number): string {
  if (gain >= AUPRC_STEP && fprCost < FPR_STEP) return "pays";
  if (fprCost <= -FPR_STEP && gain > -AUPRC_STEP) return "pays (fewer false positives)";
  if (gain >= AUPRC_STEP) return "trade-off (more recall, more false positives)";
  if (gain <= -AUPRC_STEP || fprCost >= FPR_STEP) return "costs";
  return "no measurable effect";
}
