import type { WindowEvidence } from "../engine/window-evidence.js";
import { personal, type RuleContext, type RuleFamily } from "./rule-family.js";

/** Whether the first-person self-harm phrase rule flags this window. */
function intentFlags(w: WindowEvidence, ctx: RuleContext): boolean {
  return ctx.enabled(selfHarmIntent.name) && personal(w.intent, w.model.self_harm ?? 0, ctx.threshold("self_harm"));
}

/**
 * A first-person self-harm phrase ("I want to end my life"): the learned heads rarely see long
 * first-person posts, so plain statements are missed without it.
 */
export const selfHarmIntent: RuleFamily = {
  name: "self-harm-intent",
  apply(w, ctx) {
    if (!intentFlags(w, ctx)) return;
    ctx.consider("self_harm", Math.max(w.intent, w.model.self_harm ?? 0), true, "self_harm", ["selfHarmIntent"]);
    ctx.consider("self_harm_intent", Math.max(w.intent, w.model.self_harm_intent ?? 0), true, "self_harm_intent", ["selfHarmIntent"]);
  },
};
