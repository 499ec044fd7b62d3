import type { Token } from "../model/features.js";
import { tokensOutside } from "./addresses.js";

/**
 * The tokens without a transcript's speaker labels ("User:", "Assistant:" at the start of the
 * text or of a line): callers moderating a chat send turns so labelled, and to the embedding bag
 * the label is one more word diluting a short turn ("User: " before 352 written sentences changed
 * 21 flags, 14 lost every flag). Only these roles, each followed by a colon: a label is the
 * format, not the content ("the user: a person who..." is read). Read in normalised text (lower
 * case; repeated letters are one, so "assistant" is "asistant").
 */
export function withoutSpeakerLabels(text: string, tokens: Token[], startsLine: (position: number) => boolean): Token[] {
  if (!text.includes(":")) return tokens;
  const labels = [...text.matchAll(SPEAKER_LABEL)]
    .map((m) => [m.index + m[0].indexOf(m[1]!), m.index + m[0].length] as const)
    .filter(([start]) => startsLine(start));
  return tokensOutside(tokens, labels);
}
// Normalisation turns line breaks into spaces: whether a label starts a line is read in the
// caller's text (startsLine, engine.ts), only for the rare role word followed by a colon.
const SPEAKER_LABEL = /(?:^|[ >*])(user|asistant|system|human|ai|bot|chatbot|customer|agent|model) ?:/g;
