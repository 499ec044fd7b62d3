import { isCategoryId } from "../classifiers/categories.js";

/** Strings an answer may hold that are ours or a guard model's vocabulary, never the caller's. */
const VOCABULARY = /^(?:S\d{1,2}|categories|reason|safe|unsafe|yes|no)$/i;

/**
 * How an error names something a provider's answer held. Those errors are logged, and guard models
 * often echo the prompt (the caller's text) in an answer that is no verdict: "Unexpected token
 * 'm', \"my secret \"..." and 40 characters of it reached the log (audit, session 52). Only our
 * category ids and the guard models' own words (a code such as "S15") are quoted, being what one
 * debugs by; anything else, a one-word prompt too, is named by its kind and length only.
 */
export function quoteSafely(value: unknown): string {
  if (typeof value === "string") return isCategoryId(value) || VOCABULARY.test(value) ? JSON.stringify(value) : `a text of ${value.length} characters`;
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return Array.isArray(value) ? "an array" : `a${typeof value === "object" ? "n object" : ` ${typeof value}`}`;
}
