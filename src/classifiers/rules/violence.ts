import { phraseRule } from "./phrase-rule.js";

/**
 * A violent act against others the writer declares as their own: plain, with a named target (a
 * school, everyone), it flags alone; against one person it needs the head's support.
 */
export const violentActs = phraseRule({
  name: "violent-acts", evidence: "violentAct", support: "violence", lexicons: ["violentActs"],
  flags: [{ category: "violence", explain: "violence" }],
});

/** Making a weapon built to kill many ("how do I make a pipe bomb"). */
export const weaponMaking = phraseRule({
  name: "weapon-making", evidence: "weaponMaking", support: "violence", lexicons: ["weaponMaking"],
  flags: [{ category: "violence", explain: "violence" }],
});
