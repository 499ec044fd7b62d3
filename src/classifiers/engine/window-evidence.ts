import type { CategoryId } from "../categories.js";
import type { Window } from "../model/windows.js";
import type { LexiconHit } from "../rules/lexicon/index.js";

/**
 * What the engine knows about each window of a text (evidence) and what it proposes for each
 * category (a candidate), shared by engine.ts and the rule families (rules/).
 */

/** The named lexicon hit lists of a text, whose spans explain rule-based flags. */
export type HitList =
  | "sexual" | "graphicViolence" | "minors" | "threats"
  | "selfHarmIntent" | "insults" | "nudity" | "groupClaims" | "exterminationClaims" | "thirdPersonInsults";

/** Every hit list of a text, plus everyday senses of nudity words (which only keep others off). */
export type TextHits = Record<HitList, LexiconHit[]> & { everydayNudity: LexiconHit[] };

/** Per-window evidence, kept so the winning window of each category can be explained. */
export interface WindowEvidence {
  window: Window;
  /** Tokens starting inside the window: [tFrom, tTo). */
  tFrom: number;
  tTo: number;
  features: Uint32Array;
  /** Calibrated model score per category with a head. */
  model: Partial<Record<CategoryId, number>>;
  sexualLex: number;
  graphicLex: number;
  minors: number;
  threats: number;
  /** A threat phrase the writer declares as their own coming act ("I will hurt you"). */
  declaredThreat: number;
  /** First-person self-harm phrase, not negated. */
  intent: number;
  /** Insult aimed at the reader, or a direct abuse phrase. */
  insult: number;
  /** Insult said of someone other than the reader, the writer or a named group, at a reduced weight. */
  thirdPersonInsult: number;
  /** Nudity / sexualised-appearance words, for short texts only. */
  nudity: number;
  /** The strongest nudity word about pictures ("nude pics", "nudes"), short texts only. */
  nudeImagery: number;
  /** A dehumanising claim about a group ("immigrants are vermin"), or an exterminationist one. */
  dehumanising: number;
  /** The exterminationist part alone ("X should be exterminated"), which also threatens. */
  extermination: number;
  /** A nudity word in an everyday sense ("nude lipstick", "the naked truth") and no other sexual word. */
  everydaySense: boolean;
}

export interface Candidate {
  score: number;
  flagged: boolean;
  at: number;
  /** Which evidence to explain: the learned head, lexicon hits, or both. */
  lexicons: HitList[];
  /** The learned head whose features explain this category, if any. */
  head: CategoryId | undefined;
  /** That head's score in this window: breaks ties between windows with equal scores. */
  support: number;
}
