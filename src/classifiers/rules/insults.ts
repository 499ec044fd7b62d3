import { phraseRule } from "./phrase-rule.js";
import { PERSONAL_RULES, type RuleFamily } from "./rule-family.js";

/** An insult aimed at the reader ("you worthless idiot") or a direct abuse phrase ("fuck you"). */
export const insults = phraseRule({
  name: "insults", evidence: "insult", support: "harassment", lexicons: ["insults"],
  flags: [{ category: "harassment", explain: "harassment" }],
});

/**
 * An insult said of someone other than the reader ("he is such an idiot") counts at this share of
 * its weight (engine evidence), and flags harassment only when the learned head is over
 * THIRD_PERSON_SUPPORT x its bar and no framed claim (negation, counter-speech, support) governs the
 * text. Held out, with the disowned-insults frame: harassment recall 0.210 -> 0.291 at higher precision.
 */
export const THIRD_PERSON_FACTOR = 0.5;
const THIRD_PERSON_SUPPORT = 0.5;

export const thirdPersonInsults: RuleFamily = {
  name: "third-person-insults",
  apply(w, ctx) {
    if (ctx.claim) return;
    if (w.thirdPersonInsult >= PERSONAL_RULES.supported && (w.model.harassment ?? 0) >= THIRD_PERSON_SUPPORT * ctx.threshold("harassment")) {
      ctx.consider("harassment", Math.max(w.thirdPersonInsult, w.model.harassment ?? 0), true, "harassment", ["thirdPersonInsults"]);
    }
  },
};
