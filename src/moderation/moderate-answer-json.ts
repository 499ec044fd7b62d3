import { toJson, type JsonValue } from "@bufbuild/protobuf";
import { ModerateResponseSchema, type ModerateResponse } from "../../gen/moderation/v1/moderation_pb.js";
import type { AnswerInit, CategoriesInit, TextItemResultInit } from "./moderate.js";

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
    })),
    ...(combined ? { combined: { flagged: combined.flagged, categories: combined.categories, explanations: explanationsJson(combined.explanations) } } : {}),
  });
}

// Category scores go as toCategories built them ({ score, flagged }, in that order); spans are
// the classifier's own objects, so they are copied field by field to fix their key order.
function explanationsJson(explanations: CategoriesInit["explanations"]) {
  return explanations.map((e) => ({
    category: e.category,
    spans: e.spans.map((s) => ({ start: s.start, end: s.end, text: s.text, weight: s.weight })),
  }));
}
