import type { CategoryId } from "../../categories.js";

/**
 * Transparent first-line rules: each pattern adds evidence (a weight) to one category.
 * Deliberately conservative; the trained model (src/classifiers/engine) replaces this
 * as the default, and this stays as a dependency-free fallback.
 */
interface PatternRule {
  category: CategoryId;
  pattern: RegExp;
  weight: number;
}

const rule = (category: CategoryId, weight: number, words: string): PatternRule => ({
  category,
  weight,
  pattern: new RegExp(`\\b(?:${words})\\b`, "giu"),
});

export const PATTERN_RULES: readonly PatternRule[] = [
  rule("harassment", 1.2, "idiot|moron|stupid (?:bitch|cunt|loser)|loser|worthless|pathetic|shut up|nobody likes you|piece of shit"),
  rule("harassment", 1.6, "fuck you|fuck off|you(?: are|'re) (?:a )?(?:pathetic|disgusting|worthless|stupid)"),
  rule("harassment_threatening", 2.5, "i(?:'ll| will| am going to|'m going to| gonna) (?:kill|hurt|find|beat|stab|shoot) you|you(?:'re| are) (?:dead|going to die)|watch your back"),
  rule("hate", 1.6, "(?:all|those|these) (?:jews|muslims|blacks|gays|immigrants|women|mexicans) (?:are|should)|subhuman|vermin|go back to your country"),
  rule("hate_threatening", 2.5, "(?:kill|exterminate|gas|lynch) (?:all|the|every) (?:jews|muslims|blacks|gays|immigrants|women|mexicans)"),
  rule("self_harm", 1.6, "self[- ]?harm|cut(?:ting)? myself|hurt myself|suicid(?:e|al)|end my life|kill myself"),
  rule("self_harm_intent", 2.2, "i (?:want|am going|'m going|plan|intend) to (?:kill myself|end (?:it|my life)|die)|i(?:'ll| will) kill myself"),
  rule("self_harm_instructions", 2.2, "how (?:to|do i|can i) (?:kill myself|commit suicide|cut myself)|(?:best|easiest|painless) way to (?:die|kill myself)"),
  rule("sexual", 1.4, "porn|nude|naked|blowjob|orgasm|cum|dick|pussy|cock|masturbat\\w*|sex(?:ual)? (?:act|intercourse)|fuck(?:ing|ed)? (?:her|him|me)"),
  rule("violence", 1.3, "kill|murder|stab(?:bed|bing)?|shoot(?:ing)?|beat (?:him|her|them) up|bomb|massacre|slaughter"),
  rule("violence_graphic", 2.0, "blood everywhere|guts|disembowel\\w*|decapitat\\w*|dismember\\w*|brains? (?:splattered|blown out)|gore"),
];

/** Words suggesting a minor; combined with sexual evidence they raise sexual_minors. */
export const MINOR_PATTERN = /\b(?:child|children|kid|kids|minor|minors|underage|preteen|\d{1,2}[- ]?(?:yo|year[- ]old)|little (?:girl|boy)|schoolgirl|schoolboy)\b/giu;
