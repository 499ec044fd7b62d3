import { ERROR_CODES, type ErrorCode } from "../../errors/api-error.js";
import { API_ROUTES, type ApiRoute } from "./api-routes.js";
import type { JsonSchema } from "./proto-json-schema.js";

/**
 * The OpenAPI 3.1 document of the HTTP JSON routes (API_ROUTES), built once at start-up from
 * the proto descriptors (gen/) and the error table (src/errors/api-error.ts).
 */
export function buildOpenApiDocument(routes: readonly ApiRoute[] = API_ROUTES): JsonSchema {
  const schemas: Record<string, JsonSchema> = { Error: errorSchema(Object.keys(ERROR_CODES) as ErrorCode[]) };
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const responses: Record<string, JsonSchema> = {};
    const answerHeaders = route.auth ? { ...REQUEST_ID, ...SIGNED, ...RATE_LIMIT } : { ...REQUEST_ID, ...SIGNED };
    for (const [status, answer] of Object.entries(route.responses)) {
      responses[status] = { description: answer.description, headers: signedRoute(route) ? answerHeaders : REQUEST_ID, content: { "application/json": { schema: answer.schema(schemas) } } };
    }
    for (const [status, codes] of byStatus(route.errors, route.statusOf)) {
      responses[String(status)] = {
        description: `Error: ${codes.map((code) => `\`${code}\``).join(", ")}.`,
        headers: { ...(signedRoute(route) ? answerHeaders : REQUEST_ID), ...ERROR_CODE, ...(codes.some((code) => RETRYABLE.has(code)) ? RETRY_AFTER : {}) },
        content: { "application/json": { schema: (route.errorSchema ?? errorSchema)(codes) } },
      };
    }
    (paths[route.path] ??= {})[route.method] = {
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      operationId: operationId(route),
      ...(route.auth ? { security: [{ apiKey: [] }, { bearer: [] }] } : { security: [] }),
      ...(route.parameters ? { parameters: route.parameters } : {}),
      ...(route.requestBody ? { requestBody: { required: true, content: { "application/json": { schema: route.requestBody(schemas) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Moderation service: HTTP JSON API",
      version: "1",
      description: "The JSON routes. The same service is also served over gRPC, gRPC-Web and Connect from proto/ (see docs/api.md). Every error answers {\"error\":{\"code\",\"message\"}} with a stable code (see the README's error table); POST /v1/moderations answers OpenAI's error shape with the same codes.",
    },
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    paths,
    components: {
      schemas,
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        bearer: { type: "http", scheme: "bearer", description: "The same API key as a bearer token." },
      },
    },
  };
}

const REQUEST_ID = {
  "X-Request-Id": { description: "The request's id in the server's log: the caller's X-Request-Id when well formed, else generated.", schema: { type: "string" } },
};

/** The API's own routes sign every answer; the JWKS, health and metrics routes do not. */
const signedRoute = (route: ApiRoute): boolean => route.path.startsWith("/v1/");

const header = (description: string) => ({ description, schema: { type: "string" } });

/** RFC 9421 / 9530 headers of a signed answer (docs/signing.md). */
const SIGNED = {
  Signature: header("Ed25519 signature of the answer, bound to the request (docs/signing.md)."),
  "Signature-Input": header("The signed components and parameters (created, keyid, alg)."),
  "Content-Digest": header("SHA-256 of the answer's body (RFC 9530)."),
  "Moderation-Request-Digest": header("SHA-256 of the request body the answer is bound to."),
  "Moderation-Route": header("The route called; signed, so an answer cannot pass for another endpoint's."),
  "Moderation-Account": header("The caller's account id, once its key was found live; signed, so an answer cannot pass for another account's."),
};

/** On answers the rate limiter decided (a refusal before the key is known has none). */
const RATE_LIMIT = {
  "X-RateLimit-Limit": header("Requests per minute the account's plan allows."),
  "X-RateLimit-Remaining": header("Requests left in the rolling minute."),
  "X-RateLimit-Reset": header("Seconds until a request's budget comes back."),
  RateLimit: header("The same, as the IETF draft's structured field."),
  "RateLimit-Policy": header("The plan's quota and window, as the IETF draft's structured field."),
};

const ERROR_CODE = { "X-Error-Code": header("The error's stable code, the same as error.code in the body.") };

/** Codes answered with Retry-After. */
const RETRYABLE = new Set<ErrorCode>(["rate_limit_exceeded", "rate_limiter_unavailable", "storage_unavailable", "service_unavailable", "provider_unavailable", "deep_analysis_unavailable"]);
const RETRY_AFTER = { "Retry-After": header("Seconds to wait before retrying, on the codes that are worth retrying (rate limits, unavailable dependencies).") };

function errorSchema(codes: readonly ErrorCode[]): JsonSchema {
  return {
    type: "object",
    required: ["error"],
    additionalProperties: false,
    properties: {
      error: {
        type: "object",
        required: ["code", "message"],
        additionalProperties: false,
        properties: { code: { type: "string", enum: [...codes] }, message: { type: "string" } },
      },
    },
  };
}

/** The route's error codes grouped by the HTTP status the error table gives them, in status order. */
function byStatus(codes: readonly ErrorCode[], statusOf = (code: ErrorCode): number => ERROR_CODES[code].http): Array<[number, ErrorCode[]]> {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = statusOf(code);
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return [...groups].sort(([a], [b]) => a - b);
}

function operationId(route: ApiRoute): string {
  const words = route.path.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1));
  return route.method + words.join("");
}
