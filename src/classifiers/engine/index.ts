import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TextClassifier } from "../classifier.js";
import { createEngine } from "./engine.js";
import { withLanguageGate } from "../language/language-gate.js";
import { decodeModel } from "../model/model-file.js";

export { createEngine } from "./engine.js";
export { decodeModel, encodeModel } from "../model/model-file.js";

/** The committed model, resolved from this module so it works from any working directory. */
export const DEFAULT_MODEL_PATH = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "models", "text-moderation.bin");

/**
 * Loads the trained text model, behind the language gate (text in a language it does not cover is
 * not scored; language/language-gate.ts). Synchronous and pure after loading: one instance can serve any
 * number of concurrent requests.
 */
export function loadTrainedClassifier(modelPath: string = DEFAULT_MODEL_PATH): TextClassifier {
  return withLanguageGate(createEngine(decodeModel(readFileSync(modelPath))));
}
