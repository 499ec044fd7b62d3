import type { TextClassifier } from "./classifier.js";
import { createPatternClassifier } from "./rules/pattern/pattern-classifier.js";
import { loadTrainedClassifier } from "./engine/index.js";

/**
 * The text classifier TEXT_CLASSIFIER names: the trained model (default) or the small
 * rule-based fallback. The event loop and the compute workers load theirs through here.
 */
export function createConfiguredTextClassifier(kind: "trained" | "pattern"): TextClassifier {
  return kind === "pattern" ? createPatternClassifier() : loadTrainedClassifier();
}
