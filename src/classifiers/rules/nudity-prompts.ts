import { phraseRule } from "./phrase-rule.js";

/**
 * A short request built on nudity words ("topless woman, sexy pose"): euphemistic prompts avoid the
 * explicit vocabulary the density evidence needs.
 */
export const nudityPrompts = phraseRule({
  name: "nudity-prompts", evidence: "nudity", support: "sexual", lexicons: ["nudity"],
  flags: [{ category: "sexual", explain: "sexual" }],
});
