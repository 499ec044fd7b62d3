import type { CategoryId } from "./categories.js";

/**
 * OpenAI's moderation categories, in the order its API lists them, and which of ours each one
 * is. `illicit` and `illicit/violent` have no counterpart here: the service never evaluates
 * them, so they are reported the way OpenAI reports a category it did not apply to an input
 * (score 0, not flagged, no applied input types).
 */
export const OPENAI_CATEGORIES = [
  ["harassment", "harassment"],
  ["harassment/threatening", "harassment_threatening"],
  ["hate", "hate"],
  ["hate/threatening", "hate_threatening"],
  ["illicit", undefined],
  ["illicit/violent", undefined],
  ["self-harm", "self_harm"],
  ["self-harm/intent", "self_harm_intent"],
  ["self-harm/instructions", "self_harm_instructions"],
  ["sexual", "sexual"],
  ["sexual/minors", "sexual_minors"],
  ["violence", "violence"],
  ["violence/graphic", "violence_graphic"],
] as const satisfies ReadonlyArray<readonly [string, CategoryId | undefined]>;
