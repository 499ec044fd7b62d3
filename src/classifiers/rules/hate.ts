import { personal, type RuleFamily } from "./rule-family.js";

/**
 * A dehumanising claim about a group ("immigrants are vermin"): plain statements the hate head
 * misses held out. A counter-speech frame ("saying X are vermin is disgusting") keeps it off;
 * negated claims never match (lexicon/group-claims.ts). Calls for a group's extermination or death
 * threaten too.
 */
export const groupClaims: RuleFamily = {
  name: "group-claims",
  apply(w, ctx) {
    if (ctx.frames.counter || !personal(w.dehumanising, w.model.hate ?? 0, ctx.threshold("hate"))) return;
    ctx.consider("hate", Math.max(w.dehumanising, w.model.hate ?? 0), true, "hate", ["groupClaims"]);
    if (personal(w.extermination, w.model.hate ?? 0, ctx.threshold("hate"))) {
      ctx.consider("hate_threatening", Math.max(w.extermination, w.model.hate_threatening ?? 0), true, "hate_threatening", ["exterminationClaims"]);
    }
  },
};
