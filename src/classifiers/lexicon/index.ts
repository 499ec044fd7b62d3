import { compileTermList, type CompiledTermList } from "./lexicon.js";
import { GRAPHIC_VIOLENCE, MINOR_INDICATORS, SELF_HARM_METHODS, SEXUAL_EXPLICIT, THREATS } from "./terms.js";

export { compileTermList, evidenceScore, scanText, strongestHit, type CompiledTermList, type LexiconHit } from "./lexicon.js";
export * from "./terms.js";

export interface Lexicons {
  sexual: CompiledTermList;
  graphicViolence: CompiledTermList;
  minors: CompiledTermList;
  selfHarmMethods: CompiledTermList;
  threats: CompiledTermList;
}

let cached: Lexicons | undefined;

/** The compiled lexicons; compiled once per process because compiling normalises every term. */
export function getLexicons(): Lexicons {
  cached ??= {
    sexual: compileTermList(SEXUAL_EXPLICIT),
    graphicViolence: compileTermList(GRAPHIC_VIOLENCE),
    minors: compileTermList(MINOR_INDICATORS),
    selfHarmMethods: compileTermList(SELF_HARM_METHODS),
    threats: compileTermList(THREATS),
  };
  return cached;
}
