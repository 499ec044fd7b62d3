import type { ApiError } from "./api-error.js";

/** Fastify's own errors, translated into the API's codes. */
const FASTIFY_CODES: Record<string, ApiError["code"]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_EMPTY_JSON_BODY: "invalid_request",
  FST_ERR_CTP_INVALID_JSON_BODY: "invalid_request",
  FST_ERR_VALIDATION: "invalid_request",
  // A method fastify has no router tree for (FOO over HTTP/2), or one that must carry a body type
  // (QUERY) sent without it: they were 500 internal_error with a logged stack.
  FST_ERR_NOT_FOUND: "not_found",
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: "unsupported_media_type",
};

/** An error fastify raised (a body over its limit, a bad content type), as the API's error; others as toApiError reads them. */
export function fastifyCodeOf(error: unknown): ApiError["code"] | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? FASTIFY_CODES[code] : undefined;
}
