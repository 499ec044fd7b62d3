import { create } from "@bufbuild/protobuf";
import {
  CategoryScoreSchema,
  CombinedResultSchema,
  ExplanationSchema,
  ItemResultSchema,
  ModerateResponseSchema,
  NotEvaluatedItemSchema,
  NotEvaluatedItemsSchema,
  NotEvaluatedSchema,
  SecondOpinionSchema,
  SpanSchema,
  type CategoryScore,
  type CombinedResult,
  type Explanation,
  type ItemResult,
  type ModerateResponse,
  type NotEvaluated,
} from "../../gen/moderation/v1/moderation_pb.js";
import type { AnswerInit, CategoriesInit, LanguageInit, TextItemResultInit } from "./assemble-answer.js";

/**
 * The ModerateResponse message of an answer of text items only, built field by field from the
 * parts assembleAnswer puts together: the same object create(ModerateResponseSchema, answer)
 * makes (a test holds them equal), at about half its cost, since create walks the descriptor
 * for each of the dozen nested messages. Text-only answers are built this way (on the JSON route
 * only when something reads them: src/workers/lazy-text-answer.ts); answers with images go through create.
 */
export function textAnswerMessage(answer: AnswerInit<TextItemResultInit>): ModerateResponse {
  const message: ModerateResponse = {
    $typeName: ModerateResponseSchema.typeName,
    id: answer.id,
    model: answer.model,
    flagged: answer.flagged,
    results: answer.results.map((result) => withLanguageFields<ItemResult>({
      $typeName: ItemResultSchema.typeName,
      index: result.index,
      type: result.type,
      flagged: result.flagged,
      categories: categoryScores(result.categories),
      explanations: explanations(result.explanations),
      models: [...result.models],
    }, result)),
  };
  if (answer.notEvaluated) {
    message.notEvaluated = {
      $typeName: NotEvaluatedItemsSchema.typeName,
      items: answer.notEvaluated.items.map((n) => ({ $typeName: NotEvaluatedItemSchema.typeName, index: n.index, reason: n.reason, language: n.language })),
    };
    const unread = answer.notEvaluated.combined;
    if (unread) message.notEvaluated.combined = { $typeName: NotEvaluatedSchema.typeName, reason: unread.reason, language: unread.language };
  }
  const combined = answer.combined;
  if (combined) {
    message.combined = withLanguageFields<CombinedResult>({
      $typeName: CombinedResultSchema.typeName,
      flagged: combined.flagged,
      categories: categoryScores(combined.categories),
      explanations: explanations(combined.explanations),
    }, combined);
    // As create would make it; only a guard model's parts have one (never a worker's), so its cost is rare.
    if (combined.secondOpinion) message.combined.secondOpinion = create(SecondOpinionSchema, combined.secondOpinion);
  }
  return message;
}

/**
 * Sets the optional language fields on `message`, only where the parts have them (as create leaves
 * them unset). By assignment, not an object spread: V8's spread cost about 0.6 µs a result (in process).
 */
function withLanguageFields<M extends { language?: string | undefined; notEvaluated?: NotEvaluated | undefined }>(message: M, parts: LanguageInit): M {
  if (parts.language !== undefined) message.language = parts.language;
  if (parts.notEvaluated) message.notEvaluated = { $typeName: NotEvaluatedSchema.typeName, reason: parts.notEvaluated.reason, language: parts.notEvaluated.language };
  return message;
}

function categoryScores(categories: CategoriesInit["categories"]): Record<string, CategoryScore> {
  const scores: Record<string, CategoryScore> = {};
  for (const id in categories) {
    const entry = categories[id]!;
    scores[id] = { $typeName: CategoryScoreSchema.typeName, score: entry.score, flagged: entry.flagged };
  }
  return scores;
}

function explanations(list: CategoriesInit["explanations"]): Explanation[] {
  return list.map((e) => ({
    $typeName: ExplanationSchema.typeName,
    category: e.category,
    spans: e.spans.map((s) => ({ $typeName: SpanSchema.typeName, start: s.start, end: s.end, text: s.text, weight: s.weight })),
  }));
}
