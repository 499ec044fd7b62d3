import { MAX_JSON_DEPTH } from "../base/json-depth.js";
import { firstDuplicateKey } from "../base/json-duplicate-keys.js";
import { MAX_JSON_VALUES, outlineJson } from "../base/json-outline.js";
import { MAX_ITEMS } from "../base/limits.js";
import { decodeStrictUtf8 } from "../base/strict-utf8.js";
import { ApiError } from "../errors/api-error.js";
import { invalidJsonMessage, NOT_UTF8_MESSAGE } from "./json-syntax.js";
import { tooManyItems, tooManyJsonValues } from "./validate-request.js";

// The JSON routes' body as a JSON value, with the refusals every JSON route shares. Here, below
// the routes, so that a compute worker can parse a large body as the route would
// (http/json-off-thread.ts); each route then checks its own shape (http/json-body.ts,
// http/openai/openai-request.ts).

/**
 * A JSON route's body as a JSON value. Shared by /v1/moderate and /v1/moderations, which then
 * check their own shapes. Refused, in this order:
 *  - too_many_items: an "input" list of more than MAX_ITEMS entries, counted before parsing
 *    (json-outline.ts), in the words the shared validator uses once it is parsed;
 *  - invalid_request, before parsing: nested deeper than any request needs (json-depth.ts), or
 *    more values than any request holds (MAX_JSON_VALUES);
 *  - invalid_request: not UTF-8, empty, not JSON (saying where: json-syntax.ts), or an object holding a key twice (json-duplicate-keys.ts:
 *    JSON.parse would keep the last, another reader of the signed bytes the first).
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  const outline = outlineJson(bytes, "input");
  if (outline.listLength !== undefined && outline.listLength > MAX_ITEMS) throw tooManyItems(outline.listLength);
  if (outline.depth > MAX_JSON_DEPTH) throw new ApiError("invalid_request", `The request body nests JSON more than ${MAX_JSON_DEPTH} levels deep.`);
  if (outline.values > MAX_JSON_VALUES) throw tooManyJsonValues(MAX_JSON_VALUES);
  let text: string;
  try {
    text = decodeStrictUtf8(bytes);
  } catch {
    throw new ApiError("invalid_request", NOT_UTF8_MESSAGE);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // V8's wording is not the service's, and not always with a position: json-syntax.ts says where.
    throw new ApiError("invalid_request", invalidJsonMessage(text));
  }
  const duplicate = firstDuplicateKey(bytes);
  if (duplicate !== undefined) {
    throw new ApiError("invalid_request", duplicateKeyMessage(duplicate));
  }
  return body;
}

/** The refusal of a body holding the object key `key` twice (also Connect JSON's: moderation/json-request.ts). */
export function duplicateKeyMessage(key: string): string {
  return `The request body has a duplicate object key "${truncate(key)}": a key may appear only once in a JSON object.`;
}

/** A JSON object (not null, not an array): what each route's shape check reads fields of. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A caller's key or value as a refusal quotes it: at most 40 characters. */
export function truncate(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}
