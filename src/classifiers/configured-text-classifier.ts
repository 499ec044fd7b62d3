import type { CategoryId } from "./categories.js";
import type { TextClassifier } from "./classifier.js";
import { readModelHeader } from "./model/model-file.js";
import { createPatternClassifier } from "./rules/pattern/pattern-classifier.js";

/**
 * The text classifier TEXT_CLASSIFIER names: the trained model (default) or the small
 * rule-based fallback (no language gate: it stays dependency-free). The event loop and the
 * compute workers load theirs through here. The trained model is imported only when named, so a
 * fallback worker does not parse the model's language tables (language/read-language.ts).
 */
export async function loadConfiguredTextClassifier(kind: "trained" | "pattern"): Promise<TextClassifier> {
  if (kind === "pattern") return createPatternClassifier();
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
