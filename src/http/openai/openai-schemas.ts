import type { ErrorCode } from "../../errors/api-error.js";
import { OPENAI_CATEGORIES } from "../../classifiers/openai-categories.js";
import type { JsonSchema } from "../openapi/proto-json-schema.js";
import { MAX_ITEMS, MAX_TEXT_CODE_POINTS } from "../../base/limits.js";

/** JSON Schemas of POST /v1/moderations (OpenAI's shapes), for the OpenAPI document. */

const NAMES = OPENAI_CATEGORIES.map(([name]) => name);
const everyCategory = (value: JsonSchema): JsonSchema => ({
  type: "object",
  required: NAMES,
  additionalProperties: false,
  properties: Object.fromEntries(NAMES.map((name) => [name, value])),
});

export function openAiModerationRequestSchema(): JsonSchema {
  // The shared validator's limits (api.md): JSON Schema counts a string's length in code points, as the server does.
  const text = { type: "string", minLength: 1, maxLength: MAX_TEXT_CODE_POINTS };
  const textPart = { type: "object", required: ["type", "text"], additionalProperties: false, properties: { type: { const: "text" }, text } };
  const imagePart = {
    type: "object",
    required: ["type", "image_url"],
    additionalProperties: false,
    properties: {
      type: { const: "image_url" },
      image_url: { type: "object", required: ["url"], additionalProperties: false, properties: { url: { type: "string", description: "A data URI (data:image/png;base64,...); remote URLs are refused." } } },
    },
  };
  return {
    type: "object",
    required: ["input"],
    additionalProperties: false,
    properties: {
      model: { type: "string", description: "Accepted and ignored: the service's own model answers." },
      input: {
        description: "A string, an array of strings (one result each), or an array of text and image_url parts (one input, one result).",
        anyOf: [text, { type: "array", minItems: 1, maxItems: MAX_ITEMS, items: text }, { type: "array", minItems: 1, maxItems: MAX_ITEMS, items: { anyOf: [textPart, imagePart] } }],
      },
    },
  };
}

/** Why a text was not evaluated, or only in part (classifier.ts NotEvaluated). */
const NOT_EVALUATED_REASON: JsonSchema = { type: "string", enum: ["unsupported_language", "partly_unsupported_language", "no_text"] };

/**
 * A result field of the service's own that names inputs by position: `{"items": [{"index", ...item}]}`,
 * plus any `extra` properties beside `items`.
 */
function inputsField(description: string, item: Record<string, JsonSchema>, extra: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: "object",
    description,
    required: ["items"],
    additionalProperties: false,
    properties: {
      items: {
        type: "array",
        items: {
          type: "object",
          required: ["index", ...Object.keys(item)],
          additionalProperties: false,
          properties: { index: { type: "integer", minimum: 0, description: "Position of the string or part in input." }, ...item },
        },
      },
      ...extra,
    },
  };
}

export function openAiModerationResponseSchema(): JsonSchema {
  return {
    type: "object",
    required: ["id", "model", "results"],
    additionalProperties: false,
    properties: {
      id: { type: "string" },
      model: { type: "string" },
      policy: {
        type: "object",
        description: "The service's own field: the account's policy that judged this answer (docs/policies.md). Absent when none applied.",
        required: ["id", "version"],
        additionalProperties: false,
        properties: { id: { type: "string" }, version: { type: "integer", minimum: 1 } },
      },
      results: {
        type: "array",
        items: {
          type: "object",
          required: ["flagged", "categories", "category_scores", "category_applied_input_types"],
          additionalProperties: false,
          properties: {
            flagged: { type: "boolean" },
            categories: everyCategory({ type: "boolean" }),
            category_scores: everyCategory({ type: "number", minimum: 0, maximum: 1 }),
            category_applied_input_types: everyCategory({ type: "array", items: { enum: ["text", "image"] }, description: "Empty: not evaluated for this input." }),
            not_evaluated: inputsField(
              "The service's own field: the strings or parts of this result the text model did not evaluate, wholly or in part (docs/openai-compatibility.md). Absent when everything was evaluated.",
              { reason: NOT_EVALUATED_REASON, language: { type: "string", description: "BCP-47 code of the uncovered language." } },
              {
                combined: {
                  type: "object",
                  description: "An array of parts only: their joined reading was not evaluated, wholly or in part.",
                  required: ["reason", "language"],
                  additionalProperties: false,
                  properties: { reason: NOT_EVALUATED_REASON, language: { type: "string" } },
                },
              },
            ),
            not_seconded: inputsField(
              "The service's own field: the strings or parts of this result whose guard-model call failed, so the embedded verdict stands alone (TEXT_PROVIDER_ON_FAILURE=embedded; docs/providers.md). Absent when every call answered.",
              { error_code: { type: "string", description: "The error code the provider's failure maps to (provider_unavailable)." } },
              {
                combined: {
                  type: "object",
                  description: "An array of parts only: the call on their joined text failed, and the combined layer folded into this result is the embedded model's alone.",
                  required: ["error_code"],
                  additionalProperties: false,
                  properties: { error_code: { type: "string" } },
                },
              },
            ),
          },
        },
      },
    },
  };
}

/** OpenAI's error shape, with the service's stable code in `code`. */
export function openAiErrorSchema(codes: readonly ErrorCode[]): JsonSchema {
  return {
    type: "object",
    required: ["error"],
    additionalProperties: false,
    properties: {
      error: {
        type: "object",
        required: ["message", "type", "param", "code"],
        additionalProperties: false,
        properties: {
          message: { type: "string" },
          type: { type: "string", enum: ["invalid_request_error", "requests", "server_error"] },
          param: { type: ["string", "null"] },
          code: { type: "string", enum: [...codes] },
        },
      },
    },
  };
}
