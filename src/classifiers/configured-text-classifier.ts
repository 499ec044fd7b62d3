import type { CategoryId } from "./categories.js";
import type { TextClassifier } from "./classifier.js";
import { readModelHeader } from "./model/model-file.js";
import { createPatternClassifier } from "./rules/pattern/pattern-classifier.js";

/**
 * The text classifier TEXT_CLASSIFIER names: the trained model (default) or the small
 * rule-based fallback. The event loop and the compute workers load theirs through here. The
 * trained model is imported only when named, so a fallback worker does not load the model file.
 * Both read the text's language first: the fallback's English patterns scored French threats 0 in
 * every category, with no word that it had not read them (found by an audit, session 51).
 */
export async function loadConfiguredTextClassifier(kind: "trained" | "pattern"): Promise<TextClassifier> {
  if (kind === "pattern") {
    const { DEFAULT_COVERED_LANGUAGES, withLanguageGate } = await import("./language/language-gate.js");
    return withLanguageGate(createPatternClassifier(), DEFAULT_COVERED_LANGUAGES);
  }
  const { loadTrainedClassifier } = await import("./engine/index.js");
  return loadTrainedClassifier();
}

/**
 * The flag thresholds of the classifier TEXT_CLASSIFIER names, read from the model file's header
 * (policies keep its reading with them: apply-policy.ts flagsAt); the pattern fallback has none.
 */
export function configuredFlagBars(kind: "trained" | "pattern"): Partial<Record<CategoryId, number>> | undefined {
  return kind === "trained" ? readModelHeader().thresholds : undefined;
}
