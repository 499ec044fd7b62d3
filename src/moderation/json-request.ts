import type { DescMessage } from "@bufbuild/protobuf";
import { InputItemSchema, ModerateRequestSchema, type InputItem, type ModerateRequest } from "../../gen/moderation/v1/moderation_pb.js";
import { firstDuplicateKey } from "../base/json-duplicate-keys.js";
import { ApiError } from "../errors/api-error.js";
import { duplicateKeyMessage, isJsonObject as isObject, truncate } from "./json-body-value.js";
import { EMPTY_BODY_MESSAGE, invalidJsonMessage, isBlank } from "./json-syntax.js";

const TOP_LEVEL_FIELDS = new Set(["input", "analyze_images", "text_provider_mode"]);
const ITEM_FIELDS = new Set(["type", "text", "base64"]);

/**
 * The spec's JSON body (POST /v1/moderate), already parsed by parseJsonBody, as a ModerateRequest,
 * checking JSON types strictly. Meaning (item types, counts, lengths) is checked later by the
 * shared validator, so all protocols agree; this only catches what protobuf itself could not
 * express. `null` is a field not given, as proto3 JSON (Connect) reads it and as SDKs send an
 * unset optional field; it is looked at only once a value is not of its type (a valid body's
 * path does no more than before).
 */
export function moderateRequestFromJson(body: unknown): ModerateRequest {
  if (!isObject(body)) throw new ApiError("invalid_request", "The request body must be a JSON object with an \"input\" array.");
  for (const key of Object.keys(body)) {
    if (!TOP_LEVEL_FIELDS.has(key)) throw new ApiError("invalid_request", `Unknown field "${truncate(key)}"; expected "input" and optionally "analyze_images" and "text_provider_mode".`);
  }
  if (!Array.isArray(body.input)) throw new ApiError("invalid_request", "\"input\" must be an array of items.");
  if (body.analyze_images !== undefined && typeof body.analyze_images !== "boolean" && body.analyze_images !== null) {
    throw new ApiError("invalid_request", "\"analyze_images\" must be true or false.");
  }
  if (body.text_provider_mode !== undefined && typeof body.text_provider_mode !== "string" && body.text_provider_mode !== null) {
    throw new ApiError("invalid_request", "\"text_provider_mode\" must be a string: \"off\", \"always\" or \"cascade\".");
  }
  const input = body.input.map((item: unknown, index: number): InputItem => {
    if (!isObject(item)) throw new ApiError("invalid_request", `input[${index}] must be an object such as {"type":"text","text":"..."}.`);
    for (const key of Object.keys(item)) {
      if (!ITEM_FIELDS.has(key)) throw new ApiError("invalid_request", `input[${index}] has unknown field "${truncate(key)}".`);
    }
    for (const key of ITEM_FIELDS) {
      if (item[key] !== undefined && typeof item[key] !== "string" && item[key] !== null) {
        throw new ApiError("invalid_request", `input[${index}].${key} must be a string.`);
      }
    }
    // Absent or null, in one comparison.
    if (item.type == null) throw new ApiError("invalid_request", `input[${index}].type is missing; it must be "text" or "image".`);
    // Messages built field by field: the objects create() would make (a test holds them equal), cheaper.
    return { $typeName: InputItemSchema.typeName, type: item.type as string, text: (item.text as string | null | undefined) ?? "", base64: (item.base64 as string | null | undefined) ?? "" };
  });
  return {
    $typeName: ModerateRequestSchema.typeName, input, analyzeImages: body.analyze_images === true,
    textProviderMode: (body.text_provider_mode as string | null | undefined) ?? "",
  };
}

/**
 * Why Connect's JSON decoder (protobuf-es's fromJsonString) refused `json` (the body's text, `bytes`
 * its UTF-8) as a ModerateRequest, in the words /v1/moderate uses for the same mistake: an empty
 * body, the JSON fault and where (json-syntax.ts), a duplicate key, then the JSON route's shape
 * checks (moderateRequestFromJson) read as proto3 JSON reads a body: a field under its JSON
 * (camelCase) or proto name, unknown fields ignored, `null` as not given. Undefined when none of
 * these finds the fault (e.g. a lone surrogate, which protobuf strings refuse): the decoder's own
 * words are given then. Runs only once the decoder has refused the body.
 */
export function explainRefusedConnectJson(json: string, bytes: Uint8Array): string | undefined {
  if (isBlank(json)) return EMPTY_BODY_MESSAGE;
  const syntax = explainRefusedJsonSyntax(json, bytes);
  if (syntax !== undefined) return syntax;
  const value: unknown = JSON.parse(json);
  // The caller's name of each field renamed, to give it back in the message.
  const named = new Map<string, string>();
  let shaped = value;
  if (isObject(value)) {
    const top = fieldsAsProtoNames(value, ModerateRequestSchema, named);
    // No input, or null: an empty list to protobuf (the shared validator then asks for an item).
    top.input ??= [];
    if (Array.isArray(top.input)) top.input = top.input.map((item: unknown) => (isObject(item) ? fieldsAsProtoNames(item, InputItemSchema) : item));
    shaped = top;
  }
  try {
    moderateRequestFromJson(shaped);
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    let message = error.message;
    for (const [protoName, callerName] of named) message = message.replaceAll(`"${protoName}"`, `"${truncate(callerName)}"`);
    return message;
  }
}

/**
 * Why a JSON decoder refused `json` (`bytes` its UTF-8) as any message, where the fault is the
 * JSON's own: where the JSON breaks (line and column, json-syntax.ts) or, with it sound, a key
 * given twice, in the words /v1/moderate uses. Undefined otherwise (the message's shape is at fault).
 */
export function explainRefusedJsonSyntax(json: string, bytes: Uint8Array): string | undefined {
  try {
    JSON.parse(json);
  } catch {
    return invalidJsonMessage(json);
  }
  const duplicate = firstDuplicateKey(bytes);
  return duplicate === undefined ? undefined : duplicateKeyMessage(duplicate);
}

/**
 * The fields of `schema` in `object`, by proto name, as proto3 JSON takes them (under the JSON or
 * the proto name; a null one is not given; other keys ignored). `named` gets each renamed field's key.
 */
function fieldsAsProtoNames(object: Record<string, unknown>, schema: DescMessage, named?: Map<string, string>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const field of schema.fields) {
    for (const key of new Set([field.name, field.jsonName])) {
      if (!Object.hasOwn(object, key) || object[key] === null) continue;
      fields[field.name] = object[key];
      if (key !== field.name) named?.set(field.name, key);
    }
  }
  return fields;
}
