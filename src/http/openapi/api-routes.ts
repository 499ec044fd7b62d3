import { ModerateRequestSchema, ModerateResponseSchema } from "../../../gen/moderation/v1/moderation_pb.js";
import { MAX_ITEMS, MAX_TEXT_CODE_POINTS } from "../../base/limits.js";
import { ERROR_CODES, type ErrorCode } from "../../errors/api-error.js";
import { TEXT_PROVIDER_MODES } from "../../providers/text/config.js";
import { messageSchema, type JsonSchema } from "./proto-json-schema.js";
import { openAiErrorSchema, openAiModerationRequestSchema, openAiModerationResponseSchema } from "../openai/openai-schemas.js";
import { openAiStatusOf } from "../openai/openai-error.js";

/**
 * The HTTP JSON routes the OpenAPI document (GET /openapi.json) describes, one entry each.
 * To document a new route, add an entry here: its success schema (derived from a proto message
 * with messageSchema, or written out), and every error code it can answer; the error responses
 * are grouped by the status each code has in src/errors/api-error.ts. test/api/openapi.test.ts
 * then checks real answers of the route against the document. See docs/api.md.
 */
export interface ApiRoute {
  method: "get" | "post";
  path: string;
  summary: string;
  description?: string;
  /** "apiKey": X-API-Key (or Authorization: Bearer). Absent: public. */
  auth?: "apiKey";
  parameters?: JsonSchema[];
  /** The JSON request body, when the route takes one. */
  requestBody?: (components: Record<string, JsonSchema>) => JsonSchema;
  /** Answers other than errors, by status. */
  responses: Record<number, { description: string; schema: (components: Record<string, JsonSchema>) => JsonSchema }>;
  errors: readonly ErrorCode[];
  /** The route's own error shape (POST /v1/moderations answers OpenAI's); default {"error":{"code","message"}}. */
  errorSchema?: (codes: readonly ErrorCode[]) => JsonSchema;
  /** The status the route answers a code with, where it is not the error table's (POST /v1/moderations). */
  statusOf?: (code: ErrorCode) => number;
}

/** Errors any authenticated, rate-limited JSON route can answer. */
const CHAIN_ERRORS = ["missing_api_key", "invalid_api_key", "rate_limit_exceeded", "rate_limiter_unavailable", "storage_unavailable", "internal_error"] as const;

const counts = (): JsonSchema => ({
  type: "object",
  required: ["requests", "text_items", "image_items", "deep_analyses", "flagged"],
  additionalProperties: false,
  properties: Object.fromEntries(["requests", "text_items", "image_items", "deep_analyses", "flagged"].map((name) => [name, { type: "integer", minimum: 0 }])),
});

export const API_ROUTES: readonly ApiRoute[] = [
  {
    method: "post",
    path: "/v1/moderate",
    summary: "Moderate up to ten text and image items",
    description: "The answer is signed (RFC 9421 Signature and Signature-Input, RFC 9530 Content-Digest): see docs/signing.md.",
    auth: "apiKey",
    requestBody: (components) => messageSchema(ModerateRequestSchema, components, {
      direction: "request",
      requiredInRequest: { "moderation.v1.ModerateRequest": ["input"], "moderation.v1.InputItem": ["type"] },
      limitsInRequest: {
        "moderation.v1.ModerateRequest": {
          input: { minItems: 1, maxItems: MAX_ITEMS },
          text_provider_mode: { enum: [...TEXT_PROVIDER_MODES], description: "Absent: the server's TEXT_PROVIDER_MODE." },
        },
        // JSON Schema counts a string's length in code points, as the server does.
        "moderation.v1.InputItem": { type: { enum: ["text", "image"] }, text: { maxLength: MAX_TEXT_CODE_POINTS } },
      },
    }),
    responses: { 200: { description: "The verdicts, one result per item in input order.", schema: (components) => messageSchema(ModerateResponseSchema, components, { direction: "response" }) } },
    errors: [
      "invalid_request", "too_many_items", "text_too_long", "invalid_image", "unsupported_image_type", "image_too_large",
      "payload_too_large", "unsupported_media_type", "deep_analysis_not_configured", "deep_analysis_unavailable",
      "provider_not_configured", "provider_unavailable", "service_unavailable", ...CHAIN_ERRORS,
    ],
  },
  {
    method: "post",
    path: "/v1/moderations",
    summary: "OpenAI-compatible moderation (OpenAI's request, response and error shapes)",
    description: "For OpenAI's SDKs (base URL .../v1). Same chain, method and signature as /v1/moderate: see docs/openai-compatibility.md.",
    auth: "apiKey",
    requestBody: () => openAiModerationRequestSchema(),
    responses: { 200: { description: "One result per input string, or one for an array of parts.", schema: () => openAiModerationResponseSchema() } },
    errors: [
      "invalid_request", "too_many_items", "text_too_long", "invalid_image", "remote_image_not_supported", "unsupported_image_type", "image_too_large",
      "payload_too_large", "unsupported_media_type", "provider_unavailable", "service_unavailable", ...CHAIN_ERRORS,
    ],
    errorSchema: openAiErrorSchema,
    statusOf: (code) => openAiStatusOf(ERROR_CODES[code].http, code),
  },
  {
    method: "get",
    path: "/v1/usage",
    summary: "The calling account's usage in time buckets",
    description: "Signed like /v1/moderate, bound to the request target (path and query) instead of a body.",
    auth: "apiKey",
    parameters: [
      { name: "granularity", in: "query", schema: { type: "string", enum: ["minute", "hour", "day"], default: "day" } },
      { name: "from", in: "query", description: "Start: Unix seconds or an ISO 8601 time.", schema: { type: "string" } },
      { name: "to", in: "query", description: "End (exclusive): Unix seconds or an ISO 8601 time.", schema: { type: "string" } },
    ],
    responses: {
      200: {
        description: "Usage counts per bucket and in total.",
        schema: () => ({
          type: "object",
          required: ["account_id", "plan", "requests_per_minute", "granularity", "buckets", "totals"],
          additionalProperties: false,
          properties: {
            account_id: { type: "string" },
            plan: { type: "string" },
            requests_per_minute: { type: "integer", minimum: 0 },
            granularity: { type: "string", enum: ["minute", "hour", "day"] },
            buckets: {
              type: "array",
              items: { ...counts(), required: ["start", ...(counts().required as string[])], properties: { start: { type: "integer", description: "Unix seconds" }, ...(counts().properties as object) } },
            },
            totals: counts(),
          },
        }),
      },
    },
    errors: ["invalid_request", ...CHAIN_ERRORS],
  },
  {
    method: "get",
    path: "/.well-known/jwks.json",
    summary: "Public keys that verify response signatures (JWKS, RFC 7517)",
    description: "Cacheable for 5 minutes (Cache-Control: public, max-age=300). It carries an ETag; a request whose If-None-Match names it is answered 304 Not Modified, with no body, while the keys are the same.",
    responses: {
      200: {
        description: "The active key and any retiring keys still published.",
        schema: () => ({
          type: "object",
          required: ["keys"],
          additionalProperties: false,
          properties: {
            keys: {
              type: "array",
              items: {
                type: "object",
                required: ["kty", "crv", "x", "kid", "use", "status", "created_at"],
                additionalProperties: false,
                properties: {
                  kty: { const: "OKP" },
                  crv: { const: "Ed25519" },
                  x: { type: "string", pattern: "^[A-Za-z0-9_-]{43}$", description: "The raw public key, base64url" },
                  kid: { type: "string" },
                  use: { const: "sig" },
                  status: { type: "string", enum: ["active", "next", "retiring"] },
                  created_at: { type: "integer", description: "Unix seconds" },
                },
              },
            },
          },
        }),
      },
    },
    errors: [],
  },
  {
    method: "get",
    path: "/healthz",
    summary: "Liveness: the process is up",
    responses: { 200: { description: "Up.", schema: () => ({ type: "object", required: ["status"], additionalProperties: false, properties: { status: { const: "ok" } } }) } },
    errors: [],
  },
  {
    method: "get",
    path: "/readyz",
    summary: "Readiness: the store (and a fail-closed rate limiter) answer",
    responses: Object.fromEntries(([[200, "Ready."], [503, "Not ready: the failing checks say why."]] as const).map(([status, description]) => [status, {
      description,
      schema: () => ({
        type: "object",
        required: ["status", "checks"],
        properties: {
          status: { const: status === 200 ? "ready" : "unavailable" },
          checks: { type: "object", additionalProperties: { type: "string", enum: ["ok", "failing"] } },
        },
      }),
    }])),
    errors: [],
  },
];
