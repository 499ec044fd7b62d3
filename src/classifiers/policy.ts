import type { CategoryId } from "./categories.js";
import type { FrameName } from "./rules/frames.js";

/**
 * How each category is decided, one row per category: the learned head whose calibrated score is its
 * score (flagging at the model file's threshold for it), the frames that keep that head from
 * flagging on its own, and the rule families (rules/) whose evidence may raise and flag it. A rule
 * family proposing a category its row does not list is ignored, so this table is the whole
 * decision: a category is one rules file plus one row here. Rule thresholds live in the families
 * (rules/rule-family.ts PERSONAL_RULES and each file); lexicon density bars in the model file.
 */
interface CategoryPolicy {
  /** The learned head scored for this category; none where training data is too thin (sexual_minors). */
  head: CategoryId | undefined;
  /** Frames under which the head's score stands but the head alone does not flag (it scores the words, not the frame). */
  suppressedBy: readonly FrameName[];
  /** Rule families (their `name`) that may flag this category. */
  rules: readonly string[];
}

/** Counter-speech, negation and support of a group: the heads score the slur or the group talk, not the frame around it. */
const CLAIM_FRAMES: readonly FrameName[] = ["negated", "counter", "supportive"];

export const POLICY: Readonly<Record<CategoryId, CategoryPolicy>> = {
  harassment: {
    head: "harassment",
    suppressedBy: [...CLAIM_FRAMES, "disownedInsults"],
    rules: ["threats", "declared-threats", "insults", "third-person-insults"],
  },
  harassment_threatening: { head: "harassment_threatening", suppressedBy: [], rules: ["threats", "declared-threats"] },
  hate: { head: "hate", suppressedBy: CLAIM_FRAMES, rules: ["group-claims"] },
  hate_threatening: { head: "hate_threatening", suppressedBy: CLAIM_FRAMES, rules: ["group-claims"] },
  self_harm: { head: "self_harm", suppressedBy: [], rules: ["self-harm-intent"] },
  self_harm_intent: { head: "self_harm_intent", suppressedBy: [], rules: ["self-harm-intent"] },
  self_harm_instructions: { head: "self_harm_instructions", suppressedBy: [], rules: [] },
  sexual: { head: "sexual", suppressedBy: ["everydaySense", "plainImagePrompt"], rules: ["sexual-density", "sexual-minors", "nudity-prompts"] },
  sexual_minors: { head: undefined, suppressedBy: [], rules: ["sexual-minors"] },
  violence: { head: "violence", suppressedBy: CLAIM_FRAMES, rules: ["graphic-density", "declared-threats"] },
  violence_graphic: { head: "violence_graphic", suppressedBy: [], rules: ["graphic-density"] },
};
