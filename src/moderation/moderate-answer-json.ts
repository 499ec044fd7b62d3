import { toJson, type JsonValue } from "@bufbuild/protobuf";
import { ModerateResponseSchema, type ModerateResponse } from "../../gen/moderation/v1/moderation_pb.js";
import type { AnswerInit, TextItemResultInit } from "./moderate.js";

/**
 * The JSON route's rendering of a Moderate answer: proto field names, every field present.
 * The one renderer: the route sends JSON.stringify of it (src/http/send-json.ts), and a compute
 * worker that answers a call ahead renders its answer message with it too, so the bytes signed
 * ahead are the bytes the route would have sent.
 */
export function moderateAnswerJson(answer: ModerateResponse): JsonValue {
  return toJson(ModerateResponseSchema, answer, { useProtoFieldName: true, alwaysEmitImplicit: true });
}

/**
 * The parts of a text-only answer back from its rendering (moderateAnswerJson as JSON text), to
 * build the message it rendered (src/workers/lazy-text-answer.ts): the JSON has proto field
 * names, the parts camelCase ones; only `not_evaluated` differs.
 */
export function parseTextAnswerJson(json: string): AnswerInit<TextItemResultInit> {
  return JSON.parse(json, (_key, value: unknown) => {
    if (value === null || typeof value !== "object" || Array.isArray(value) || !("not_evaluated" in value)) return value;
    const { not_evaluated: notEvaluated, ...rest } = value as Record<string, unknown>;
    return { ...rest, notEvaluated };
  }) as AnswerInit<TextItemResultInit>;
}
