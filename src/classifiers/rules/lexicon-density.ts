import type { RuleFamily } from "./rule-family.js";

/**
 * Lexicon densities: explicit sexual and graphic-violence vocabulary per window
 * (lexicon/terms.ts, `evidenceScore`) back up the thin classes; they can raise a score, never lower one.
 */
export const sexualDensity: RuleFamily = {
  name: "sexual-density",
  apply(w, ctx) {
    ctx.consider("sexual", w.sexualLex, w.sexualLex >= ctx.lexiconBar.sexual, undefined, ["sexual"]);
  },
};

export const graphicDensity: RuleFamily = {
  name: "graphic-density",
  apply(w, ctx) {
    const flagged = w.graphicLex >= ctx.lexiconBar.graphicViolence;
    ctx.consider("violence_graphic", w.graphicLex, flagged, undefined, ["graphicViolence"]);
    ctx.consider("violence", w.graphicLex, flagged, undefined, ["graphicViolence"]);
  },
};
