import type { CategoryId } from "../categories.js";
import type { HitList, WindowEvidence } from "../engine/window-evidence.js";
import { personal, type RuleFamily } from "./rule-family.js";

/**
 * The declarative shape most phrase rules share: window evidence that, by personal() with the
 * `support` head, flags each category of `flags` at max(evidence, that category's own head),
 * explained by the `explain` head's features and the `lexicons` hits.
 */
interface PhraseRuleSpec {
  name: string;
  evidence: "insult" | "nudity";
  support: CategoryId;
  flags: readonly { category: CategoryId; explain: CategoryId }[];
  lexicons: HitList[];
}

export function phraseRule(spec: PhraseRuleSpec): RuleFamily {
  return {
    name: spec.name,
    apply(w: WindowEvidence, ctx): void {
      const evidence = w[spec.evidence];
      if (!personal(evidence, w.model[spec.support] ?? 0, ctx.threshold(spec.support))) return;
      for (const { category, explain } of spec.flags) ctx.consider(category, Math.max(evidence, w.model[category] ?? 0), true, explain, spec.lexicons);
    },
  };
}
