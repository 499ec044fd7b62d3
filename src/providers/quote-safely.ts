/**
 * How an error names something a provider's answer held. Those errors are logged, and guard models
 * often echo the prompt (the caller's text) in an answer that is no verdict: "Unexpected token
 * 'm', \"my secret \"..." and 40 characters of it reached the log (audit, session 52). A short
 * identifier (a category key, a code such as "S15") is quoted, being what one debugs by; anything
 * else is named by its kind and length only.
 */
export function quoteSafely(value: unknown): string {
  if (typeof value === "string") return /^[A-Za-z0-9_/.-]{1,32}$/.test(value) ? JSON.stringify(value) : `a text of ${value.length} characters`;
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value);
  return Array.isArray(value) ? "an array" : `a${typeof value === "object" ? "n object" : ` ${typeof value}`}`;
}
