import type { ModerateRequest } from "../../gen/moderation/v1/moderation_pb.js";
import { ApiError } from "../errors/api-error.js";
import { MAX_ITEMS, MAX_TEXT_CODE_POINTS } from "../base/limits.js";
import { codePointLength } from "../base/code-points.js";

export type ValidItem = { index: number; type: "text"; text: string } | { index: number; type: "image"; dataUri: string };

/**
 * Checks a request the same way whatever protocol it came over, and returns its items.
 * Images are only checked for presence here; decoding them has its own, stricter checks.
 */
export function validateModerateRequest(request: ModerateRequest): ValidItem[] {
  if (request.input.length === 0) {
    throw new ApiError("invalid_request", "The request must hold at least one input item in \"input\".");
  }
  if (request.input.length > MAX_ITEMS) throw tooManyItems(request.input.length);
  return request.input.map((item, index): ValidItem => {
    if (item.type === "text") {
      if (item.base64 !== "") throw new ApiError("invalid_request", `input[${index}] is a text item and must not carry "base64".`);
      if (item.text === "") throw new ApiError("invalid_request", `input[${index}].text must be a non-empty string.`);
      const length = codePointLength(item.text, MAX_TEXT_CODE_POINTS + 1);
      if (length > MAX_TEXT_CODE_POINTS) {
        throw new ApiError("text_too_long", `input[${index}].text is longer than ${MAX_TEXT_CODE_POINTS} characters (Unicode code points).`);
      }
      return { index, type: "text", text: item.text };
    }
    if (item.type === "image") {
      if (item.text !== "") throw new ApiError("invalid_request", `input[${index}] is an image item and must not carry "text".`);
      if (item.base64 === "") throw new ApiError("invalid_image", `input[${index}].base64 must be a data URI such as data:image/png;base64,....`);
      // A link to an image, as /v1/moderations names it (remote_image_not_supported there; the
      // code here stays invalid_image). Asked only of a value not starting as "data:" does.
      const first = item.base64.charCodeAt(0);
      if (first !== 0x64 && first !== 0x44 && isRemoteUrl(item.base64)) {
        throw new ApiError("invalid_image", `input[${index}].base64 is a URL; images must be data URIs (data:<type>;base64,…); URLs are not fetched.`);
      }
      return { index, type: "image", dataUri: item.base64 };
    }
    const shown = item.type === "" ? "missing" : `"${item.type.slice(0, 40)}"`;
    throw new ApiError("invalid_request", `input[${index}].type is ${shown}; it must be "text" or "image".`);
  });
}

/**
 * Whether an image's value is a link to one, not its bytes: an http(s) URL, also with spaces
 * before it or without its scheme ("//cdn.example/x.png"). Images are never fetched; both the
 * shared validator and /v1/moderations (http/openai/openai-request.ts) tell a link so.
 */
export function isRemoteUrl(value: string): boolean {
  return /^\s*(?:https?:|\/\/)/i.test(value);
}

/**
 * The refusal of a request of `count` items, past MAX_ITEMS; also raised by the routes that count
 * items before parsing a body (moderation/json-body-value.ts, rpc/guard-request-body.ts), in the same words.
 */
export function tooManyItems(count: number): ApiError {
  return new ApiError("too_many_items", `A request may hold at most ${MAX_ITEMS} input items; this one holds ${count}.`);
}

/**
 * The refusal of a body of more JSON values (object members and array elements, counted before it
 * is parsed: json-outline.ts) than `bound`: the JSON routes' (json-body-value.ts) and Connect
 * JSON's (rpc/guard-request-body.ts), in the same words.
 */
export function tooManyJsonValues(bound: number): ApiError {
  return new ApiError("invalid_request", `The request body holds more than ${bound} JSON values (object members and array elements), far more than any request needs.`);
}

/** The same bound for a protobuf message, counted in its list elements and map entries. */
export function tooManyMessageValues(bound: number): ApiError {
  return new ApiError("invalid_request", `The request message holds more than ${bound} list elements and map entries, far more than any request needs.`);
}
