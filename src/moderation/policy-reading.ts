import type { Verdict } from "../classifiers/classifier.js";
import { applyPolicy, findPolicyTerms, withoutAllowedTerms, type CompiledPolicy, type FlagBars, type PolicyVerdict } from "../policies/apply-policy.js";
import type { JudgedText } from "./second-opinion.js";

/**
 * The embedded model's verdict of `text` (`verdict`) under a policy. Where the policy allows a
 * term in it, the text is read again (`read`) without the allowed terms: they never count as
 * evidence on their own, and the rest of the text still flags (applyPolicy).
 * Tests: test/moderation/policy-under-second-opinion.test.ts, test/policies/policy-threshold-spans.test.ts.
 */
export async function embeddedUnderPolicy(text: string, verdict: Verdict, read: (text: string) => Promise<Verdict>, policy: CompiledPolicy, bars: FlagBars | undefined): Promise<PolicyVerdict> {
  const hits = findPolicyTerms(text, policy);
  const masked = withoutAllowedTerms(text, hits, policy);
  return applyPolicy(verdict, text, policy, { hits, bars, ...(masked === undefined ? {} : { withoutAllowed: await read(masked) }) });
}

/**
 * The bars of the categories the embedded model alone judged: a category the guard model judged
 * (alone or with it) was flagged by the guard's own threshold, not ours, so a policy threshold
 * reads its score alone (flagsAt without a bar).
 */
export function embeddedBarsOf(bars: FlagBars | undefined, judged: Pick<JudgedText, "secondOpinion">, embeddedModel: string): FlagBars | undefined {
  if (!bars || !judged.secondOpinion?.seconded) return bars;
  const { categoryModels } = judged.secondOpinion;
  return Object.fromEntries(Object.entries(bars).filter(([c]) => categoryModels[c]?.models[0] === embeddedModel));
}
