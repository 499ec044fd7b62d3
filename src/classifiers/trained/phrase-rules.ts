import type { CategoryId } from "../categories.js";
import type { HitList, WindowEvidence } from "./window-evidence.js";

/**
 * Phrase evidence at or above ALONE flags by itself; weaker evidence (at least SUPPORTED) flags when
 * the learned head is over SUPPORT x its own bar. Phrase rules cover harm aimed at a person
 * (lexicon/personal-terms.ts) and plain statements the learned heads miss held out.
 */
const PERSONAL_RULES = { alone: 0.8, supported: 0.4, support: 0.5 } as const;

/** Whether phrase evidence flags: plain on its own, or weaker with the learned head's support. */
export function personal(evidence: number, model: number, bar: number): boolean {
  return evidence >= PERSONAL_RULES.alone || (evidence >= PERSONAL_RULES.supported && model >= PERSONAL_RULES.support * bar);
}

/**
 * The phrase rules of one shape: window evidence that, by personal() with the `support` head, flags
 * each category of `flags` at max(evidence, that category's own head), explained by the `explain`
 * head's features and the `lexicons` hits. Rules with more logic (self-harm intent, which feeds the
 * instructions rule; group claims, which a counter-speech frame keeps off) stay in engine.ts.
 */
interface PhraseRule {
  evidence: "veiledThreat" | "violentAct" | "weaponMaking" | "insult" | "nudity";
  support: CategoryId;
  flags: readonly { category: CategoryId; explain: CategoryId }[];
  lexicons: HitList[];
}

const PHRASE_RULES: readonly PhraseRule[] = [
  // A veiled threat at the reader ("I know where your kids go to school") threatens and harasses.
  {
    evidence: "veiledThreat", support: "harassment", lexicons: ["veiledThreats"],
    flags: [{ category: "harassment_threatening", explain: "harassment" }, { category: "harassment", explain: "harassment" }],
  },
  // A violent act against others the writer declares as their own: plain, with a named target
  // (a school, everyone), it flags alone; against one person it needs the head's support.
  { evidence: "violentAct", support: "violence", lexicons: ["violentActs"], flags: [{ category: "violence", explain: "violence" }] },
  // Making a weapon built to kill many ("how do I make a pipe bomb").
  { evidence: "weaponMaking", support: "violence", lexicons: ["weaponMaking"], flags: [{ category: "violence", explain: "violence" }] },
  // An insult aimed at the reader ("you worthless idiot") or a direct abuse phrase ("fuck you").
  { evidence: "insult", support: "harassment", lexicons: ["insults"], flags: [{ category: "harassment", explain: "harassment" }] },
  // A short request built on nudity words ("topless woman, sexy pose"): euphemistic prompts avoid
  // the explicit vocabulary the density evidence needs.
  { evidence: "nudity", support: "sexual", lexicons: ["nudity"], flags: [{ category: "sexual", explain: "sexual" }] },
];

/** Runs PHRASE_RULES on one window; `consider` records a flagged candidate as engine.ts does. */
export function applyPhraseRules(
  w: WindowEvidence,
  threshold: (c: CategoryId) => number,
  consider: (c: CategoryId, score: number, explain: CategoryId, lexicons: HitList[]) => void,
): void {
  for (const rule of PHRASE_RULES) {
    const evidence = w[rule.evidence];
    if (!personal(evidence, w.model[rule.support] ?? 0, threshold(rule.support))) continue;
    for (const { category, explain } of rule.flags) consider(category, Math.max(evidence, w.model[category] ?? 0), explain, rule.lexicons);
  }
}

/**
 * Combined grooming evidence (lexicon GROOMING, weights 0.4-0.6) that flags sexual_minors: two
 * phrases of 0.6 (0.84) with a plain minor indicator in the window, or three on their own (0.9 or
 * more: three of 0.6, or two of 0.6 and one of 0.4). Overlapping phrases count once
 * (combinePhrases). Grooming holds no sexual words, which the other sexual_minors rules need.
 */
const GROOMING_WITH_MINOR = 0.8;
const GROOMING_ALONE = 0.9;

export function groomingFlags(w: WindowEvidence): boolean {
  return (w.grooming >= GROOMING_WITH_MINOR && w.minors >= 0.6) || w.grooming >= GROOMING_ALONE;
}

/**
 * An insult said of someone other than the reader ("he is such an idiot") counts at this share of
 * its weight (engine.ts), and flags harassment only when the learned head is over
 * THIRD_PERSON_SUPPORT x its bar; the engine also asks that no frame (negation, counter-speech,
 * support) governs the text. Held out, with the disowned-insults frame (engine.ts): harassment
 * recall 0.210 -> 0.291 at higher precision (models/README.md).
 */
export const THIRD_PERSON_FACTOR = 0.5;
const THIRD_PERSON_SUPPORT = 0.5;

export function thirdPersonInsultFlags(w: WindowEvidence, harassmentBar: number): boolean {
  return w.thirdPersonInsult >= PERSONAL_RULES.supported && (w.model.harassment ?? 0) >= THIRD_PERSON_SUPPORT * harassmentBar;
}
