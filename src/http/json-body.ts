import { InputItemSchema, ModerateRequestSchema, type InputItem, type ModerateRequest } from "../../gen/moderation/v1/moderation_pb.js";
import { ApiError } from "../errors/api-error.js";
import { isJsonObject as isObject, parseJsonBody, truncate } from "../moderation/json-body-value.js";

const TOP_LEVEL_FIELDS = new Set(["input", "analyze_images", "text_provider_mode"]);
const ITEM_FIELDS = new Set(["type", "text", "base64"]);

/**
 * Turns the spec's JSON body into a ModerateRequest, checking JSON types strictly.
 * Meaning (item types, counts, lengths) is checked later by the shared validator, so all
 * protocols agree; this only catches what protobuf itself could not express.
 */
export function parseModerateJson(bytes: Uint8Array): ModerateRequest {
  return moderateRequestFromJson(parseJsonBody(bytes));
}

/** parseModerateJson's checks of a body already parsed (by parseJsonBody, here or in a compute worker). */
export function moderateRequestFromJson(body: unknown): ModerateRequest {
  if (!isObject(body)) throw new ApiError("invalid_request", "The request body must be a JSON object with an \"input\" array.");
  for (const key of Object.keys(body)) {
    if (!TOP_LEVEL_FIELDS.has(key)) throw new ApiError("invalid_request", `Unknown field "${truncate(key)}"; expected "input" and optionally "analyze_images" and "text_provider_mode".`);
  }
  if (!Array.isArray(body.input)) throw new ApiError("invalid_request", "\"input\" must be an array of items.");
  if (body.analyze_images !== undefined && typeof body.analyze_images !== "boolean") {
    throw new ApiError("invalid_request", "\"analyze_images\" must be true or false.");
  }
  if (body.text_provider_mode !== undefined && typeof body.text_provider_mode !== "string") {
    throw new ApiError("invalid_request", "\"text_provider_mode\" must be a string: \"off\", \"always\" or \"cascade\".");
  }
  const input = body.input.map((item: unknown, index: number): InputItem => {
    if (!isObject(item)) throw new ApiError("invalid_request", `input[${index}] must be an object such as {"type":"text","text":"..."}.`);
    for (const key of Object.keys(item)) {
      if (!ITEM_FIELDS.has(key)) throw new ApiError("invalid_request", `input[${index}] has unknown field "${truncate(key)}".`);
    }
    for (const key of ITEM_FIELDS) {
      if (item[key] !== undefined && typeof item[key] !== "string") {
        throw new ApiError("invalid_request", `input[${index}].${key} must be a string.`);
      }
    }
    if (item.type === undefined) throw new ApiError("invalid_request", `input[${index}].type is missing; it must be "text" or "image".`);
    // Messages built field by field: the objects create() would make (a test holds them equal), cheaper.
    return { $typeName: InputItemSchema.typeName, type: item.type as string, text: (item.text as string | undefined) ?? "", base64: (item.base64 as string | undefined) ?? "" };
  });
  return {
    $typeName: ModerateRequestSchema.typeName, input, analyzeImages: body.analyze_images === true,
    textProviderMode: (body.text_provider_mode as string | undefined) ?? "",
  };
}
