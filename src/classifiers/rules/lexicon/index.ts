import { compileTermList, type CompiledTermList } from "./lexicon.js";
import { DIRECT_ABUSE, INSULTS, SELF_HARM_INTENT } from "./personal-terms.js";
import { DEROGATORY_PREDICATES, EVERYDAY_NUDITY, REJECTION_CUES, REPORTING_CUES, SUPPORT_VERBS, SUPPORTIVE_PREDICATES } from "./framing-terms.js";
import { CONSPIRACY_PREDICATES, DEHUMANISING_PREDICATES, EXTERMINATION_PREDICATES, GROUP_TERMS } from "./group-terms.js";
import { GRAPHIC_VIOLENCE, MINOR_INDICATORS, NUDITY, SEXUAL_ACTS, SEXUAL_EXPLICIT, THREATS } from "./terms.js";

export { compileTermList, evidenceScore, scanText, strongestHit, type CompiledTermList, type LexiconHit } from "./lexicon.js";
export { aboutImagery, aimedAtReader, combinePhrases, declaredSelfHarm, precededDirectlyBy, normalizedCues, notFoldedLookalike, declaredThreats, dropNegated, followedBy, notAboutWriter, notCutsOf, notCounting, notInGame, notNounSense, notOfGroup, notOfThing, notReflexiveIdiom, statedPhrases } from "./context.js";
export { dropHyperbole, groupStartTokens, hasQuotation, imagePromptWords, negatedClaims, outside } from "./framing.js";
export { groupClaims } from "./group-claims.js";
export { SUPPORT_MAX_WORDS, supportiveFrame } from "./supportive-claims.js";
export * from "./group-terms.js";
export * from "./framing-terms.js";
export * from "./personal-terms.js";
export * from "./terms.js";

export interface Lexicons {
  sexual: CompiledTermList;
  sexualActs: CompiledTermList;
  graphicViolence: CompiledTermList;
  minors: CompiledTermList;
  threats: CompiledTermList;
  selfHarmIntent: CompiledTermList;
  insults: CompiledTermList;
  directAbuse: CompiledTermList;
  nudity: CompiledTermList;
  derogatory: CompiledTermList;
  reporting: CompiledTermList;
  rejection: CompiledTermList;
  everydayNudity: CompiledTermList;
  groups: CompiledTermList;
  dehumanising: CompiledTermList;
  conspiracy: CompiledTermList;
  extermination: CompiledTermList;
  supportive: CompiledTermList;
  supportVerbs: CompiledTermList;
}

let cached: Lexicons | undefined;

/** The compiled lexicons; compiled once per process because compiling normalises every term. */
export function getLexicons(): Lexicons {
  cached ??= {
    sexual: compileTermList(SEXUAL_EXPLICIT),
    sexualActs: compileTermList(SEXUAL_ACTS),
    graphicViolence: compileTermList(GRAPHIC_VIOLENCE),
    minors: compileTermList(MINOR_INDICATORS),
    threats: compileTermList(THREATS),
    selfHarmIntent: compileTermList(SELF_HARM_INTENT),
    insults: compileTermList(INSULTS),
    directAbuse: compileTermList(DIRECT_ABUSE),
    nudity: compileTermList(NUDITY),
    derogatory: compileTermList(DEROGATORY_PREDICATES),
    reporting: compileTermList(REPORTING_CUES),
    rejection: compileTermList(REJECTION_CUES),
    everydayNudity: compileTermList(EVERYDAY_NUDITY),
    groups: compileTermList(GROUP_TERMS),
    dehumanising: compileTermList(DEHUMANISING_PREDICATES),
    conspiracy: compileTermList(CONSPIRACY_PREDICATES),
    extermination: compileTermList(EXTERMINATION_PREDICATES),
    supportive: compileTermList(SUPPORTIVE_PREDICATES),
    supportVerbs: compileTermList(SUPPORT_VERBS),
  };
  return cached;
}
