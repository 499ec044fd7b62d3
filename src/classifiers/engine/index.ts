import { readFileSync } from "node:fs";
import type { TextClassifier } from "../classifier.js";
import { createEngine } from "./engine.js";
import { withLanguageGate } from "../language/language-gate.js";
import { DEFAULT_MODEL_PATH, decodeModel, type ModelFile } from "../model/model-file.js";

export { createEngine } from "./engine.js";
export { DEFAULT_MODEL_PATH, decodeModel, encodeModel } from "../model/model-file.js";

/**
 * Loads the trained text model, behind the language gate (text in a language it does not cover is
 * not scored; language/language-gate.ts). Synchronous and pure after loading: one instance can serve any
 * number of concurrent requests.
 */
export function loadTrainedClassifier(modelPath: string = DEFAULT_MODEL_PATH): TextClassifier {
  return trainedClassifierOf(decodeModel(readFileSync(modelPath)));
}

/** The same classifier from a model file already decoded (a tool that also reads its header). */
export function trainedClassifierOf(model: ModelFile): TextClassifier {
  return withLanguageGate(createEngine(model));
}
