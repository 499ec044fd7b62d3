import type { CategoryId } from "../categories.js";
import type { Candidate, HitList, WindowEvidence } from "../engine/window-evidence.js";
import type { Frames } from "./frames.js";

/**
 * One rule family: evidence found by its word lists (window-evidence.ts) that may flag categories.
 * Which categories a family may flag is the policy table's `rules` column (policy.ts), so a family
 * that proposes a category its row does not list is ignored.
 */
export interface RuleFamily {
  /** Stable id: the policy table and the rule ledger (models/rule-ledger.md) name it. */
  readonly name: string;
  apply(w: WindowEvidence, ctx: RuleContext): void;
}

export interface RuleContext {
  /** The text's frames (frames.ts). */
  frames: Frames;
  /** A framed claim: negated, counter-speech or supportive. */
  claim: boolean;
  /** The category's support bar: the model file's supportThresholds, else its flag thresholds. */
  threshold(c: CategoryId): number;
  /** Lexicon density bars from the model file. */
  lexiconBar: { sexual: number; graphicViolence: number };
  /**
   * The window being judged reads its nudity word in an everyday sense ("nude lipstick") and has no
   * other sexual word (the everydaySense frame, unless the ledger switched it off).
   */
  everydaySense: boolean;
  /** Whether another family is switched on (the ledger switches families off). */
  enabled(name: string): boolean;
  /** Proposes a verdict for a category; `explain` is the learned head whose features explain it. */
  consider(c: CategoryId, score: number, flagged: boolean, explain: Candidate["head"], lexicons: HitList[]): void;
}

/**
 * Phrase evidence at or above ALONE flags by itself; weaker evidence (at least SUPPORTED) flags when
 * the learned head is over SUPPORT x its own bar. Phrase rules cover harm aimed at a person
 * (lexicon/personal-terms.ts) and plain statements the learned heads miss held out.
 */
export const PERSONAL_RULES = { alone: 0.8, supported: 0.4, support: 0.5 } as const;

/** Whether phrase evidence flags: plain on its own, or weaker with the learned head's support. */
export function personal(evidence: number, model: number, bar: number): boolean {
  return evidence >= PERSONAL_RULES.alone || (evidence >= PERSONAL_RULES.supported && model >= PERSONAL_RULES.support * bar);
}
