import { insults, thirdPersonInsults } from "./insults.js";
import { graphicDensity, sexualDensity } from "./lexicon-density.js";
import { nudityPrompts } from "./nudity-prompts.js";
import type { RuleFamily } from "./rule-family.js";
import { selfHarmIntent } from "./self-harm.js";
import { sexualMinors } from "./sexual-minors.js";
import { declaredThreats, threats } from "./threats.js";
import { groupClaims } from "./hate.js";

export type { RuleContext } from "./rule-family.js";

/**
 * Every rule family, in the order the engine applies them to a window. Order matters only for ties
 * (equal score and support: the first proposal stays), which decides which evidence explains a flag.
 */
export const RULE_FAMILIES: readonly RuleFamily[] = [
  sexualDensity, graphicDensity,
  sexualMinors,
  threats, declaredThreats,
  insults, nudityPrompts,
  thirdPersonInsults,
  selfHarmIntent,
  groupClaims,
];
