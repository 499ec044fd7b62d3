import { phraseRule } from "./phrase-rule.js";
import { PERSONAL_RULES, type RuleFamily } from "./rule-family.js";

/** An insult aimed at the reader ("you worthless idiot") or a direct abuse phrase ("fuck you"). */
export const insults = phraseRule({
  name: "insults", evidence: "insult", support: "harassment", lexicons: ["insults"],
  flags: [{ category: "harassment", explain: "harassment" }],
});

/**
 * An insult said of someone other than the reader ("he is such an idiot") counts at this share of
 * its weight (engine evidence). With the learned head over THIRD_PERSON_SUPPORT x its support bar
 * and no framed claim (negation, counter-speech, support) governing the text, it raises the
 * harassment score to that evidence, but it does not flag: only the head at its own bar, or another
 * family, flags. The ranking is what pays held out (pooled harassment AUPRC +0.025, rule ledger);
 * its flags did not: on CAD's expert-labelled Reddit posts (calibration split, session 25) they were
 * 6 right and 50 wrong, most of them insults of things or ideas ("a stupid term", "the dumbest hill
 * to die on"), 39 of the 144 neutral posts the classifier flagged.
 */
export const THIRD_PERSON_FACTOR = 0.5;
const THIRD_PERSON_SUPPORT = 0.5;

export const thirdPersonInsults: RuleFamily = {
  name: "third-person-insults",
  apply(w, ctx) {
    if (ctx.claim) return;
    if (w.thirdPersonInsult >= PERSONAL_RULES.supported && (w.model.harassment ?? 0) >= THIRD_PERSON_SUPPORT * ctx.threshold("harassment")) {
      ctx.consider("harassment", Math.max(w.thirdPersonInsult, w.model.harassment ?? 0), false, "harassment", ["thirdPersonInsults"]);
    }
  },
};
