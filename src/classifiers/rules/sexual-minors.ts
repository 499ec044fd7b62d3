import type { RuleFamily } from "./rule-family.js";

/**
 * The minor indicator weight sexual evidence needs beside it to flag sexual_minors: "girl" (0.4),
 * "son" (0.3) or "daughter" (0.5) alone are said of adults too ("the girl at the bar").
 */
export const MINOR_FOR_SEXUAL_EVIDENCE = 0.6;
/** A plain minor indicator ("a 14 year old", "child"; not "girl" or "baby"): the weight from which one counts beside nude pictures. */
export const PLAIN_MINOR = 0.8;

/**
 * sexual_minors has no honest training data: sexual evidence AND a minor indicator in the same window.
 * Nudity words about pictures in a short request count as sexual evidence here ("nude pics of young
 * teens"), though alone they need the head's support to flag sexual. Under the plain-image-prompt
 * frame the head's sexual score is the prompt style, not evidence; under the everyday-sense frame
 * ("nude lipstick for teens") it is the nudity word's other sense, which the frame already keeps
 * from flagging sexual: beside a minor it must not flag sexual_minors either.
 */
export const sexualMinors: RuleFamily = {
  name: "sexual-minors",
  apply(w, ctx) {
    const headIsEvidence = !ctx.frames.plainImagePrompt && !ctx.everydaySense;
    const sexual = Math.max(headIsEvidence ? (w.model.sexual ?? 0) : 0, w.sexualLex, w.nudeImagery);
    const sm = Math.min(sexual, w.minors);
    const sexualWithMinor = w.minors >= MINOR_FOR_SEXUAL_EVIDENCE && sexual >= ctx.threshold("sexual_minors");
    ctx.consider("sexual_minors", sm, sexualWithMinor, "sexual", w.nudeImagery > 0 ? ["minors", "sexual", "nudity"] : ["minors", "sexual"]);
    // The sexual evidence that flags sexual_minors is sexual content: flag it as such too, so an
    // answer never says "sexual content involving minors" without "sexual content".
    if (sexualWithMinor) ctx.consider("sexual", sexual, true, "sexual", w.nudeImagery > 0 ? ["sexual", "nudity"] : ["sexual"]);
  },
};
