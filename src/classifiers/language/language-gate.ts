import type { NotEvaluated, TextClassifier, Verdict } from "../classifier.js";
import { readLanguage, type LanguageReading } from "./read-language.js";

/**
 * Languages the text model covers when its file does not say: every training set is English.
 * models/languages.md lists them for the model card.
 */
export const DEFAULT_COVERED_LANGUAGES: readonly string[] = ["en"];

/** From this share of its letters in uncovered languages a text is not evaluated at all; under it, in part. */
const UNCOVERED_SHARE = 0.5;

/**
 * Wraps a text classifier so each verdict reports the text's language, and text in a language the
 * classifier does not cover is not scored: its categories are absent (a score of 0 would read as
 * "safe") and the verdict says why. Text partly in such a language is scored, and says which part
 * was not read. One exception keeps found harm from being hidden: where the classifier flags a text
 * read as uncovered anyway (English abuse the detector took for Swedish: "SLUT SLUT WHORE"), the
 * verdict stands, marked as partly evaluated.
 */
export function withLanguageGate(inner: TextClassifier, covered: readonly string[] = inner.languages ?? DEFAULT_COVERED_LANGUAGES): TextClassifier {
  const coveredSet = new Set(covered);
  const languages = [...coveredSet];
  const decide = (reading: LanguageReading, verdict: Verdict): Verdict => {
    const uncovered = reading.uncovered;
    if (uncovered && uncovered.share >= UNCOVERED_SHARE && !Object.values(verdict.categories).some((c) => c?.flagged)) {
      const notEvaluated: NotEvaluated = { reason: "unsupported_language", language: uncovered.language };
      return { categories: {}, explanations: {}, language: uncovered.language, notEvaluated };
    }
    // Copied by assignment, not `{ ...verdict, language }`: V8's spread of such an object took
    // about 0.6 µs a verdict against under 0.1 µs this way (in process).
    const out = Object.assign({}, verdict);
    out.language = uncovered && uncovered.share >= UNCOVERED_SHARE ? uncovered.language : reading.language;
    if (uncovered) out.notEvaluated = { reason: "partly_unsupported_language", language: uncovered.language };
    return out;
  };
  return {
    id: inner.id,
    languages,
    classify(text: string): Verdict | Promise<Verdict> {
      const reading = readLanguage(text, coveredSet);
      const verdict = inner.classify(text);
      return verdict instanceof Promise ? verdict.then((v) => decide(reading, v)) : decide(reading, verdict);
    },
  };
}
