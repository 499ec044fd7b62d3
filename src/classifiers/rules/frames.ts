import type { TextHits } from "../engine/window-evidence.js";
import type { Token } from "../model/features.js";
import { groupStartTokens, hasQuotation, imagePromptWords, negatedClaims, outside, SUPPORT_MAX_WORDS, supportiveFrame, type LexiconHit, type Lexicons } from "./lexicon/index.js";

/**
 * Frames of a short text that keep some learned heads from flagging on their own (which heads: the
 * policy table's `suppressedBy`, policy.ts). Rule families read some of them too.
 */
export interface Frames {
  negated: boolean; counter: boolean; supportive: boolean;
  disownedInsults: boolean;
  /** A short image prompt with no suggestive, nudity or explicit word: the sexual head does not flag, nor count as evidence. */
  plainImagePrompt: boolean;
}

/** Frames by name, plus one decided per window: an everyday sense of a nudity word. */
export type FrameName = keyof Frames | "everydaySense";

export const FRAME_NAMES: readonly FrameName[] = [
  "negated", "counter", "supportive", "disownedInsults", "plainImagePrompt", "everydaySense",
];

/** The plain-image-prompt frame covers prompts of up to this many words. */
const IMAGE_PROMPT_MAX_WORDS = 40;

/** What framesOf needs from the text's scan (engine/engine.ts, where the text is read once for every window). */
interface FrameInputs {
  hits: TextHits;
  groups: LexiconHit[];
  insultWords: LexiconHit[];
  aboutOthers: LexiconHit[];
}

/**
 * Whether a short text frames a derogatory claim so as to reject it: negated ("X are not vermin",
 * "I don't think X are criminals") or reported and condemned ("saying X are vermin is disgusting",
 * "I can't believe you'd say ..."). Short texts only, where the frame governs the one statement;
 * in longer text other sentences may be hateful on their own.
 */
function negatedClaim(text: string, tokens: Token[], words: readonly string[], derogatory: LexiconHit[], supportive: LexiconHit[], groups: LexiconHit[]): boolean {
  // Every derogatory word must be negated: "X are not stupid, they are vermin" asserts the second.
  // A "deserve" of a good thing is no derogatory word: "X don't deserve rights" negates support.
  const predicates = outside(derogatory, supportive);
  if (predicates.length === 0) return false;
  return negatedClaims(text, tokens, words, predicates, groupStartTokens(tokens, groups)).length === predicates.length;
}
function counterSpeech(lex: Lexicons, text: string, tokens: Token[], words: readonly string[]): boolean {
  if (lex.rejection.scan(text, tokens, words).length === 0) return false;
  return hasQuotation(text) || lex.reporting.scan(text, tokens, words).length > 0;
}

/** Frames of a short text that keep some learned heads from flagging on their own. */
export function framesOf(lex: Lexicons, text: string, tokens: Token[], words: readonly string[], short: boolean, found: FrameInputs): Frames {
  const { hits, groups } = found;
  // Scanned once for the negation and the supportive frames.
  const wanted = short || (groups.length > 0 && tokens.length <= SUPPORT_MAX_WORDS);
  const derogatory = wanted ? lex.derogatory.scan(text, tokens, words) : [];
  const supportive = wanted ? lex.supportive.scan(text, tokens, words) : [];
  // "Portrait of a grandmother laughing, warm light", "photo of kids playing in the park": the
  // sexual head scored Nibbler's prompt style itself (0.93, and with "kids" that made sexual_minors).
  const plainImagePrompt = tokens.length <= IMAGE_PROMPT_MAX_WORDS && hits.sexual.length === 0 && hits.nudity.length === 0 && imagePromptWords(words);
  return {
    negated: short && negatedClaim(text, tokens, words, derogatory, supportive, groups),
    counter: short && counterSpeech(lex, text, tokens, words),
    // Support for a named group, and nothing harmful beside it (lexicon/supportive-claims.ts).
    supportive: supportiveFrame(text, tokens, words, groups, [...hits.insults, ...hits.threats, ...hits.groupClaims], { supportive, derogatory }, lex),
    // Every insult word of a short text is negated or said of the writer ("I'm such an idiot lol",
    // "you are not stupid"), and nothing threatens: the harassment head does not flag alone.
    disownedInsults: short && found.insultWords.length > 0 && hits.insults.length === 0 && found.aboutOthers.length === 0 && hits.threats.length === 0,
    plainImagePrompt,
  };
}
