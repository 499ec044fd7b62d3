import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ModerateResponseSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { CATEGORY_IDS } from "../classifiers/categories.js";
import type { EvidenceSpan, NotEvaluated, Verdict } from "../classifiers/classifier.js";
import type { PolicyVerdict } from "../policies/apply-policy.js";
import { CUSTOM_CATEGORY, LIST_SCORE } from "../policies/policy.js";
import type { SecondOpinionInit } from "./second-opinion.js";

/**
 * A Moderate answer from its parts, shared by every thread that assembles one: moderate() on the
 * event loop and the compute workers' whole answers (src/workers/compute-worker-main.ts), so equal
 * parts always make equal answers. It loads none of the event loop's pipeline (images, the
 * guard model, policies), which worker threads have no use for.
 * Tests: test/moderation/assemble-answer.test.ts, test/workers/text-answers.test.ts.
 */

type ModerateResponseInit = MessageInitShape<typeof ModerateResponseSchema>;
type ItemResultInit = NonNullable<ModerateResponseInit["results"]>[number];

/** A verdict in the response's form: the item's or the combined layer's flag, scores and explanations. */
export interface CategoriesInit {
  flagged: boolean;
  categories: Record<string, { score: number; flagged: boolean }>;
  explanations: { category: string; spans: EvidenceSpan[] }[];
}
/** What the language gate says about a text (src/classifiers/language/): its language, and what was not evaluated. */
export interface LanguageInit {
  language?: string;
  notEvaluated?: NotEvaluated;
}
export type TextItemResultInit = CategoriesInit & { index: number; type: "text"; models: string[] } & LanguageInit;

/** An answer's parts as assembleAnswer puts them together (a ModerateResponse init). */
export interface AnswerInit<R extends ItemResultInit> {
  id: string;
  model: string;
  flagged: boolean;
  results: R[];
  combined?: CategoriesInit & Pick<LanguageInit, "notEvaluated"> & { secondOpinion?: SecondOpinionInit };
  /**
   * Items, and the combined text, the text model did not evaluate, wholly or in part (never to be
   * read as safe); absent when there are none.
   */
  notEvaluated?: { items: ({ index: number } & NotEvaluated)[]; combined?: NotEvaluated };
}

/**
 * The answer from its parts. `combinedSecondOpinion`: the guard model's answer on the combined
 * text, when it was sent (never on a compute worker's answers, which are the embedded model's alone).
 */
export function assembleAnswer<R extends ItemResultInit>(id: string, model: string, results: R[], combined: Verdict | undefined, unreadByModel?: readonly (NotEvaluated | undefined)[], combinedSecondOpinion?: SecondOpinionInit): AnswerInit<R> {
  const notEvaluated: NonNullable<AnswerInit<R>["notEvaluated"]>["items"] = [];
  for (const r of results) {
    const why = (r as LanguageInit).notEvaluated;
    if (why) notEvaluated.push({ index: r.index ?? 0, reason: why.reason, language: why.language });
  }
  // The combined layer says what it left unevaluated; the language is each item's to report. It
  // holds every text item with text to read, so one the embedded model did not read (wholly or in
  // part; also where a guard model then judged the item: `unreadByModel`, empty where a guard model
  // judged the combined text whole) is a part of it not read either, however the joined text
  // reads ("Ce film est nul, you stupid idiot." beside "have a nice day" read as English joined).
  const combinedResult: AnswerInit<R>["combined"] = combined
    ? { ...toCategories(combined), ...notEvaluatedOf(combined), ...(combinedSecondOpinion ? { secondOpinion: combinedSecondOpinion } : {}) }
    : undefined;
  // An item with no text to read ("!!!") leaves nothing of the joined text unread.
  const unread = (unreadByModel ?? notEvaluated).find((n) => n !== undefined && n.reason !== "no_text");
  if (combinedResult && !combinedResult.notEvaluated && unread) combinedResult.notEvaluated = { reason: "partly_unsupported_language", language: unread.language };
  return {
    id,
    model,
    // The top-level flag reflects both layers: any item alone, or all text items together.
    flagged: results.some((r) => r.flagged) || (combinedResult?.flagged ?? false),
    results,
    ...(combinedResult ? { combined: combinedResult } : {}),
    // The combined layer's too: "je vais" and "te tuer" are each too short to read as French, and
    // their joined text was unread while the top level said nothing (found by an audit).
    ...(notEvaluated.length > 0 || combinedResult?.notEvaluated
      ? { notEvaluated: { items: notEvaluated, ...(combinedResult?.notEvaluated ? { combined: combinedResult.notEvaluated } : {}) } }
      : {}),
  };
}

/** One text item's result. */
export function textItemResult(index: number, verdict: Verdict, model: string): TextItemResultInit {
  return { index, type: "text", models: [model], ...toCategories(verdict), ...languageFields(verdict) };
}

/**
 * A verdict's language and what it left unevaluated, as the response carries them. With
 * `judgedElsewhere` (a guard model gave its verdict on the text), nothing is left unevaluated.
 */
export function languageFields(verdict: Verdict, judgedElsewhere = false): LanguageInit {
  return { ...(verdict.language !== undefined ? { language: verdict.language } : {}), ...(judgedElsewhere ? {} : notEvaluatedOf(verdict)) };
}

function notEvaluatedOf(verdict: Verdict): Pick<LanguageInit, "notEvaluated"> {
  return verdict.notEvaluated ? { notEvaluated: { reason: verdict.notEvaluated.reason, language: verdict.notEvaluated.language } } : {};
}

/**
 * Converts a classifier verdict into the response's map form, categories in their fixed order, then
 * `custom` when a policy's block list filed hits under it (src/policies/apply-policy.ts).
 */
export function toCategories(verdict: Verdict | PolicyVerdict): CategoriesInit {
  const categories: CategoriesInit["categories"] = {};
  const explanations: CategoriesInit["explanations"] = [];
  let flagged = false;
  for (const id of CATEGORY_IDS) {
    const entry = verdict.categories[id];
    if (!entry) continue;
    categories[id] = { score: entry.score, flagged: entry.flagged };
    flagged ||= entry.flagged;
    const spans = verdict.explanations[id];
    if (entry.flagged && spans && spans.length > 0) explanations.push({ category: id, spans });
  }
  const custom = "custom" in verdict ? verdict.custom : undefined;
  if (custom && custom.length > 0) {
    // Not a model score: a block-list hit is certain.
    categories[CUSTOM_CATEGORY] = { score: LIST_SCORE, flagged: true };
    explanations.push({ category: CUSTOM_CATEGORY, spans: custom });
    flagged = true;
  }
  return { flagged, categories, explanations };
}
