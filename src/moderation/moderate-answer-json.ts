import { toJson, type JsonValue } from "@bufbuild/protobuf";
import { ModerateResponseSchema, type ModerateResponse } from "../../gen/moderation/v1/moderation_pb.js";
import type { AnswerInit, CategoriesInit, LanguageInit, TextItemResultInit } from "./moderate.js";

/**
 * The JSON route's rendering of a Moderate answer: proto field names, every field present.
 * The one place that decides it, for the route and for compute workers that render ahead.
 */
export function moderateAnswerJson(answer: ModerateResponse): JsonValue {
  return toJson(ModerateResponseSchema, answer, { useProtoFieldName: true, alwaysEmitImplicit: true });
}

/**
 * The same rendering, as JSON text, of an answer of text items only, straight from the parts
 * assembleAnswer (src/moderation/moderate.ts) builds, in proto field order: the same bytes as
 * JSON.stringify(moderateAnswerJson(create(schema, init))) (a test holds them equal), without
 * building the message and walking its descriptor, which cost a compute worker several
 * microseconds per answer. Answers with images go through moderateAnswerJson.
 */
export function textAnswerJsonText(init: AnswerInit<TextItemResultInit>): string {
  const combined = init.combined;
  return JSON.stringify({
    id: init.id,
    model: init.model,
    flagged: init.flagged,
    results: init.results.map((result) => ({
      index: result.index,
      type: result.type,
      flagged: result.flagged,
      categories: result.categories,
      explanations: explanationsJson(result.explanations),
      models: result.models,
      ...languageJson(result),
    })),
    ...(combined ? { combined: { flagged: combined.flagged, categories: combined.categories, explanations: explanationsJson(combined.explanations), ...languageJson(combined) } } : {}),
    ...(init.notEvaluated ? { not_evaluated: { items: init.notEvaluated.items.map((n) => ({ index: n.index, reason: n.reason, language: n.language })) } } : {}),
  });
}

// The optional language fields, present only when set (as toJson writes a field with explicit presence).
function languageJson(parts: LanguageInit) {
  return {
    ...(parts.language !== undefined ? { language: parts.language } : {}),
    ...(parts.notEvaluated ? { not_evaluated: { reason: parts.notEvaluated.reason, language: parts.notEvaluated.language } } : {}),
  };
}

// Category scores go as toCategories built them ({ score, flagged }, in that order); spans are
// the classifier's own objects, so they are copied field by field to fix their key order.
function explanationsJson(explanations: CategoriesInit["explanations"]) {
  return explanations.map((e) => ({
    category: e.category,
    spans: e.spans.map((s) => ({ start: s.start, end: s.end, text: s.text, weight: s.weight })),
  }));
}

/**
 * The parts back from textAnswerJsonText's JSON text (for building the message it rendered): the
 * JSON has proto field names, the parts camelCase ones; only `not_evaluated` differs.
 */
export function parseTextAnswerJson(json: string): AnswerInit<TextItemResultInit> {
  return JSON.parse(json, (_key, value: unknown) => {
    if (value === null || typeof value !== "object" || Array.isArray(value) || !("not_evaluated" in value)) return value;
    const { not_evaluated: notEvaluated, ...rest } = value as Record<string, unknown>;
    return { ...rest, notEvaluated };
  }) as AnswerInit<TextItemResultInit>;
}
