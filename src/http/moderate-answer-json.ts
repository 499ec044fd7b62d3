import { toJson, type JsonValue } from "@bufbuild/protobuf";
import { ModerateResponseSchema, type ModerateResponse } from "../../gen/moderation/v1/moderation_pb.js";

/**
 * The JSON route's rendering of a Moderate answer: proto field names, every field present.
 * The one place that decides it, for the route and for compute workers that render ahead.
 */
export function moderateAnswerJson(answer: ModerateResponse): JsonValue {
  return toJson(ModerateResponseSchema, answer, { useProtoFieldName: true, alwaysEmitImplicit: true });
}
