import type { RuleFamily } from "./rule-family.js";

/**
 * Thin threat data: a direct threat phrase ("kill you") plus harassment or violence evidence in the
 * same window. An explicit phrase is strong evidence itself, so the hostility bar is lower (as for
 * sexual_minors). A threat is harassment too.
 */
export const threats: RuleFamily = {
  name: "threats",
  apply(w, ctx) {
    const hostile = Math.max(w.model.harassment ?? 0, w.model.violence ?? 0);
    const hostileFlag = (w.model.harassment ?? 0) >= 0.6 * ctx.threshold("harassment") || (w.model.violence ?? 0) >= 0.6 * ctx.threshold("violence");
    const threat = Math.min(hostile, w.threats);
    ctx.consider("harassment_threatening", threat, w.threats >= 0.8 && hostileFlag, "harassment", ["threats"]);
    if (w.threats >= 0.8 && hostileFlag) ctx.consider("harassment", Math.max(threat, w.model.harassment ?? 0), true, "harassment", ["threats"]);
  },
};

/**
 * A threat the writer declares as their own ("I will find where you live and hurt you") needs no
 * support from the heads, which rarely saw one phrased so plainly: it threatens, harasses and is violent.
 */
export const declaredThreats: RuleFamily = {
  name: "declared-threats",
  apply(w, ctx) {
    if (w.declaredThreat <= 0) return;
    ctx.consider("harassment_threatening", Math.max(w.declaredThreat, w.model.harassment_threatening ?? 0), true, "harassment", ["threats"]);
    ctx.consider("harassment", Math.max(w.declaredThreat, w.model.harassment ?? 0), true, "harassment", ["threats"]);
    ctx.consider("violence", Math.max(w.declaredThreat, w.model.violence ?? 0), true, "violence", ["threats"]);
  },
};
