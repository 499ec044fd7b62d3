import { create } from "@bufbuild/protobuf";
import { ModerateRequestSchema, type ModerateRequest } from "../../../gen/moderation/v1/moderation_pb.js";
import { ApiError } from "../../errors/api-error.js";
import { isJsonObject as isObject, parseJsonBody, truncate } from "../../moderation/json-body-value.js";
import { judgeApart } from "../../moderation/separate-inputs.js";
import { isRemoteUrl } from "../../moderation/validate-request.js";

/**
 * How the caller wrote `input`, which decides the answer's shape: a string is one input, an
 * array of strings is one input per string, and an array of typed parts is ONE input made of
 * text and images (OpenAI answers it with a single result).
 */
export type OpenAiInputShape = "string" | "strings" | "parts";

export interface OpenAiModerationRequest {
  request: ModerateRequest;
  shape: OpenAiInputShape;
}

const TOP_LEVEL_FIELDS = new Set(["input", "model"]);

/**
 * Translates OpenAI's moderation request body into the service's ModerateRequest, checking
 * JSON types strictly. Item counts and lengths are left to the shared validator, so both JSON
 * routes and the RPC protocols agree on them; an item keeps its index (input[2] here is item 2
 * there), so the shared validator's messages point at the caller's own input.
 */
export function parseOpenAiModerationJson(bytes: Uint8Array): OpenAiModerationRequest {
  return openAiModerationFromJson(parseJsonBody(bytes));
}

/** parseOpenAiModerationJson's checks of a body already parsed (by parseJsonBody, here or in a compute worker). */
export function openAiModerationFromJson(body: unknown): OpenAiModerationRequest {
  if (!isObject(body)) throw new ApiError("invalid_request", 'The request body must be a JSON object with an "input" field.');
  for (const key of Object.keys(body)) {
    if (!TOP_LEVEL_FIELDS.has(key)) throw new ApiError("invalid_request", `Unknown field "${truncate(key)}"; expected "input" and optionally "model".`);
  }
  // Any model name is accepted (e.g. "omni-moderation-latest"): the service's own model answers and the response names it.
  // null is "not given", as an SDK sends an unset optional field.
  if (body.model !== undefined && body.model !== null && typeof body.model !== "string") throw new ApiError("invalid_request", '"model" must be a string.');
  const input = body.input;
  if (input === undefined) throw new ApiError("invalid_request", '"input" is required: a string, an array of strings, or an array of text and image_url parts.');
  // An empty string is left to the shared validator, so that items are checked in index order as
  // on every route (a text too long before it is refused first); inCallersWords names it as the
  // caller sent it ("input", "input[1]"), not as the item field "input[1].text".
  if (typeof input === "string") return { shape: "string", request: textRequest([input]) };
  if (!Array.isArray(input)) throw new ApiError("invalid_request", '"input" must be a string, an array of strings, or an array of text and image_url parts.');
  if (input.every((item) => typeof item === "string")) {
    // Separate inputs, each with its own result: nothing judges them together (separate-inputs.ts).
    return { shape: "strings", request: judgeApart(textRequest(input as string[])) };
  }
  if (input.some((item) => typeof item === "string")) {
    // A number or a list among strings is no part: name it rather than call it one.
    const odd = input.findIndex((item) => typeof item !== "string" && !isObject(item));
    if (odd >= 0) throw new ApiError("invalid_request", `input[${odd}] must be a string, as the other entries are.`);
    throw new ApiError("invalid_request", '"input" mixes strings and parts; send either an array of strings or an array of {"type":...} parts.');
  }
  return { shape: "parts", request: create(ModerateRequestSchema, { input: input.map(partToItem) }) };
}

/**
 * A refusal of the shared validator in the caller's own words: it names the service's item field
 * ("input[0].text"), which a string does not have: a string input is "input", an array's string
 * is "input[i]". (A part's fields are the item's: "input[0].text" is the caller's own there.)
 */
export function inCallersWords(message: string, shape: OpenAiInputShape | undefined): string {
  if (shape === "string") return message.replace(/^input\[0\](?:\.text)?/, '"input"');
  if (shape === "strings") return message.replace(/^input\[(\d+)\]\.text\b/, "input[$1]");
  return message;
}

function textRequest(texts: string[]): ModerateRequest {
  return create(ModerateRequestSchema, { input: texts.map((text) => ({ type: "text", text })) });
}

function partToItem(part: unknown, index: number): { type: string; text?: string; base64?: string } {
  const where = `input[${index}]`;
  if (!isObject(part)) throw new ApiError("invalid_request", `${where} must be a string or a part such as {"type":"text","text":"..."}.`);
  if (part.type === "text") {
    onlyFields(part, ["type", "text"], where);
    if (typeof part.text !== "string") throw new ApiError("invalid_request", `${where}.text must be a string.`);
    return { type: "text", text: part.text };
  }
  if (part.type === "image_url") {
    onlyFields(part, ["type", "image_url"], where);
    const image = part.image_url;
    if (!isObject(image) || typeof image.url !== "string") {
      throw new ApiError("invalid_request", `${where}.image_url must be an object such as {"url":"data:image/png;base64,..."}.`);
    }
    onlyFields(image, ["url"], `${where}.image_url`);
    return { type: "image", base64: imageDataUri(image.url, where) };
  }
  const shown = part.type === undefined ? "missing" : JSON.stringify(part.type).slice(0, 40);
  throw new ApiError("invalid_request", `${where}.type is ${shown}; it must be "text" or "image_url".`);
}

/** Only data URIs are judged; the service does not fetch images from the network. */
function imageDataUri(url: string, where: string): string {
  if (isRemoteUrl(url)) {
    throw new ApiError(
      "remote_image_not_supported",
      `${where}.image_url.url is a remote URL; this service does not fetch images. Send the image inline as a data URI (data:image/png;base64,...).`,
    );
  }
  if (!/^data:/i.test(url)) throw new ApiError("invalid_image", `${where}.image_url.url must be a data URI such as data:image/png;base64,....`);
  return url;
}

function onlyFields(value: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw new ApiError("invalid_request", `${where} has unknown field "${truncate(key)}".`);
  }
}
