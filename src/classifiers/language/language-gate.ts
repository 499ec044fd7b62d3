import { CATEGORY_IDS } from "../categories.js";
import type { ClassifyOptions, NotEvaluated, TextClassifier, Verdict } from "../classifier.js";
import { readLanguage, UNDETERMINED, type LanguageReading } from "./read-language.js";

/**
 * Languages the text model covers when its file does not say: every training set is English.
 * models/languages.md lists them for the model card.
 */
export const DEFAULT_COVERED_LANGUAGES: readonly string[] = ["en"];

/**
 * Text with no letter, digit or symbol (emoji included): the model's scores for it are its scores
 * for no text at all (" ", "!!!" and "..." all got hate 0.044), judged of nothing.
 */
const NOTHING_TO_READ = /^[\p{P}\p{Z}\p{C}\p{M}\s]*$/u;

/** Whether `text` holds nothing a text model reads (no letter, digit or symbol): not evaluated, "no_text". */
export const hasNothingToRead = (text: string): boolean => NOTHING_TO_READ.test(text);
const nothingRead = (): Verdict => ({ categories: {}, explanations: {}, language: UNDETERMINED, notEvaluated: { reason: "no_text", language: UNDETERMINED } });

/** From this share of its letters in uncovered languages a text is not evaluated at all; under it, in part. */
const UNCOVERED_SHARE = 0.5;

/**
 * Wraps a text classifier so each verdict reports the text's language, and text in a language the
 * classifier does not cover is not scored: its categories are absent (a score of 0 would read as
 * "safe") and the verdict says why. Text partly in such a language is scored, and says which part
 * was not read. One exception keeps found harm from being hidden: where the classifier flags a text
 * read as uncovered anyway (English abuse the detector took for Swedish: "SLUT SLUT WHORE"), the
 * flagged categories stand, marked as partly evaluated; the others stay absent.
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
    if (uncovered && uncovered.share >= UNCOVERED_SHARE) {
      // Read as mostly uncovered, yet flagged: the flags stand, and only they. The model's other
      // scores on text it does not cover would read as judged, as harmless ("sexual_minors": 0 on
      // a French insult), and a policy that lifted a kept flag would leave a fully scored answer.
      const categories: Verdict["categories"] = {};
      const explanations: Verdict["explanations"] = {};
      for (const category of CATEGORY_IDS) {
        const result = verdict.categories[category];
        if (!result?.flagged) continue;
        categories[category] = result;
        const spans = verdict.explanations[category];
        if (spans) explanations[category] = spans;
      }
      return { categories, explanations, language: uncovered.language, notEvaluated: { reason: "partly_unsupported_language", language: uncovered.language } };
    }
    // Copied by assignment, not `{ ...verdict, language }`: V8's spread of such an object took
    // about 0.6 µs a verdict against under 0.1 µs this way (in process).
    const out = Object.assign({}, verdict);
    out.language = reading.language;
    if (uncovered) out.notEvaluated = { reason: "partly_unsupported_language", language: uncovered.language };
    return out;
  };
  return {
    id: inner.id,
    languages,
    classify(text: string, signal?: AbortSignal, options?: ClassifyOptions): Verdict | Promise<Verdict> {
      if (hasNothingToRead(text)) return nothingRead();
      const reading = readLanguage(text, coveredSet);
      const verdict = inner.classify(text, signal, options);
      return verdict instanceof Promise ? verdict.then((v) => decide(reading, v)) : decide(reading, verdict);
    },
  };
}
