import { isUtf8 } from "node:buffer";
import { InputItemSchema, ModerateRequestSchema, type InputItem, type ModerateRequest } from "../../gen/moderation/v1/moderation_pb.js";
import { MAX_JSON_DEPTH } from "../base/json-depth.js";
import { firstDuplicateKey } from "../base/json-duplicate-keys.js";
import { MAX_JSON_VALUES, outlineJson } from "../base/json-outline.js";
import { MAX_ITEMS } from "../base/limits.js";
import { ApiError } from "../errors/api-error.js";
import { tooManyItems, tooManyJsonValues } from "../moderation/validate-request.js";

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

/**
 * UTF-8 to text as TextDecoder("utf-8", { fatal: true }) decodes it (invalid bytes throw, a
 * leading byte-order mark is dropped), without constructing a decoder per request.
 */
function decodeUtf8(bytes: Uint8Array): string {
  if (!isUtf8(bytes)) throw new TypeError("not UTF-8");
  const hasBom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8", hasBom ? 3 : 0);
}

/**
 * A JSON route's body as a JSON value. Shared by /v1/moderate and /v1/moderations, which then
 * check their own shapes. Refused, in this order:
 *  - too_many_items: an "input" list of more than MAX_ITEMS entries, counted before parsing
 *    (json-outline.ts), in the words the shared validator uses once it is parsed;
 *  - invalid_request, before parsing: nested deeper than any request needs (json-depth.ts), or
 *    more values than any request holds (MAX_JSON_VALUES);
 *  - invalid_request: not UTF-8, not JSON, or an object holding a key twice (json-duplicate-keys.ts:
 *    JSON.parse would keep the last, another reader of the signed bytes the first).
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  const outline = outlineJson(bytes, "input");
  if (outline.listLength !== undefined && outline.listLength > MAX_ITEMS) throw tooManyItems(outline.listLength);
  if (outline.depth > MAX_JSON_DEPTH) throw new ApiError("invalid_request", `The request body nests JSON more than ${MAX_JSON_DEPTH} levels deep.`);
  if (outline.values > MAX_JSON_VALUES) throw tooManyJsonValues(MAX_JSON_VALUES);
  let body: unknown;
  try {
    body = JSON.parse(decodeUtf8(bytes));
  } catch {
    throw new ApiError("invalid_request", "The request body is not valid JSON.");
  }
  const duplicate = firstDuplicateKey(bytes);
  if (duplicate !== undefined) {
    throw new ApiError("invalid_request", `The request body has a duplicate object key "${truncate(duplicate)}": a key may appear only once in a JSON object.`);
  }
  return body;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function truncate(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}
