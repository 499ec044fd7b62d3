/** The fixed category ids of the API, in the order responses list them. */
export const CATEGORY_IDS = [
  "harassment",
  "harassment_threatening",
  "hate",
  "hate_threatening",
  "self_harm",
  "self_harm_intent",
  "self_harm_instructions",
  "sexual",
  "sexual_minors",
  "violence",
  "violence_graphic",
] as const;

export type CategoryId = (typeof CATEGORY_IDS)[number];

export function isCategoryId(value: string): value is CategoryId {
  return (CATEGORY_IDS as readonly string[]).includes(value);
}
