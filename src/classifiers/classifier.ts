import type { CategoryId } from "./categories.js";

export interface CategoryVerdict {
  /** Calibrated score in [0, 1]. */
  score: number;
  flagged: boolean;
}

/** A stretch of the input that drove a category; offsets are Unicode code points, end exclusive. */
export interface EvidenceSpan {
  start: number;
  end: number;
  text: string;
  weight: number;
}

/**
 * What a classifier says about one input. Only categories the classifier really judged
 * appear in `categories`: an absent category means "not evaluated", never "scored 0".
 */
export interface Verdict {
  categories: Partial<Record<CategoryId, CategoryVerdict>>;
  /** For flagged categories (and those ClassifyOptions.explainFrom asks for), the spans that contributed most (text classifiers only). */
  explanations: Partial<Record<CategoryId, EvidenceSpan[]>>;
  /** The text's detected language, a BCP-47 code ("und": undetermined); text classifiers only. */
  language?: string;
  /** Set when the classifier did not judge the text, or only part of it (categories then absent, or of the covered part). */
  notEvaluated?: NotEvaluated;
}

/** Why a text was not evaluated, or only in part. */
export interface NotEvaluated {
  /**
   * "no_text": nothing a text model reads (only spaces, punctuation or invisible characters), so
   * no score could say anything about it; language is then "und".
   */
  reason: "unsupported_language" | "partly_unsupported_language" | "no_text";
  /** The uncovered language, a BCP-47 code. */
  language: string;
}

/** What a caller asks of a classification beyond the verdict's scores and flags. */
export interface ClassifyOptions {
  /**
   * Per category, a score from which it is explained although the classifier does not flag it:
   * a policy's threshold, which may flag it there (policies/apply-policy.ts). Only flagged
   * categories are explained otherwise, so that a call under no policy spends nothing on the rest.
   */
  explainFrom?: Partial<Record<CategoryId, number>>;
}

/** Whether a classifier explains category `c` of this score and flag: flagged, or asked for (ClassifyOptions.explainFrom). */
export function isExplained(c: CategoryId, entry: CategoryVerdict, explainFrom: ClassifyOptions["explainFrom"]): boolean {
  const asked = explainFrom?.[c];
  return entry.flagged || (asked !== undefined && entry.score >= asked);
}

/** Scores text. Implementations must be deterministic: same text, same verdict. */
export interface TextClassifier {
  /** Version id reported as `model` in responses, e.g. "lexicon-2026-11". */
  readonly id: string;
  /** The languages (BCP-47) the classifier covers, where it knows them. */
  readonly languages?: readonly string[];
  /**
   * `signal`: the call's, which names the caller's account for queues callers share
   * (threads/caller-lane.ts); the embedded model does not stop on it.
   */
  classify(text: string, signal?: AbortSignal, options?: ClassifyOptions): Verdict | Promise<Verdict>;
}
