import {
  CategoryScoreSchema,
  CombinedResultSchema,
  ExplanationSchema,
  ItemResultSchema,
  ModerateResponseSchema,
  NotEvaluatedItemSchema,
  NotEvaluatedItemsSchema,
  NotEvaluatedSchema,
  SpanSchema,
  type CategoryScore,
  type Explanation,
  type ModerateResponse,
  type NotEvaluated,
} from "../../gen/moderation/v1/moderation_pb.js";
import type { AnswerInit, CategoriesInit, LanguageInit, TextItemResultInit } from "./moderate.js";

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
    results: answer.results.map((result) => ({
      $typeName: ItemResultSchema.typeName,
      index: result.index,
      type: result.type,
      flagged: result.flagged,
      categories: categoryScores(result.categories),
      explanations: explanations(result.explanations),
      models: [...result.models],
      ...languageFields(result),
    })),
  };
  if (answer.notEvaluated) {
    message.notEvaluated = {
      $typeName: NotEvaluatedItemsSchema.typeName,
      items: answer.notEvaluated.items.map((n) => ({ $typeName: NotEvaluatedItemSchema.typeName, index: n.index, reason: n.reason, language: n.language })),
    };
  }
  const combined = answer.combined;
  if (combined) {
    message.combined = {
      $typeName: CombinedResultSchema.typeName,
      flagged: combined.flagged,
      categories: categoryScores(combined.categories),
      explanations: explanations(combined.explanations),
      ...languageFields(combined),
    };
  }
  return message;
}

/** The optional language fields, set only where the parts have them (as create leaves them unset). */
function languageFields(parts: LanguageInit): { language?: string; notEvaluated?: NotEvaluated } {
  const out: { language?: string; notEvaluated?: NotEvaluated } = {};
  if (parts.language !== undefined) out.language = parts.language;
  if (parts.notEvaluated) out.notEvaluated = { $typeName: NotEvaluatedSchema.typeName, reason: parts.notEvaluated.reason, language: parts.notEvaluated.language };
  return out;
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
