import { phraseRule } from "./phrase-rule.js";

/** Making a weapon built to kill many ("how do I make a pipe bomb"). */
export const weaponMaking = phraseRule({
  name: "weapon-making", evidence: "weaponMaking", support: "violence", lexicons: ["weaponMaking"],
  flags: [{ category: "violence", explain: "violence" }],
});
