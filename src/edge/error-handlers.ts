import type { FastifyError, FastifyInstance } from "fastify";
import type { Logger } from "../base/logger.js";
import { ApiError, toApiError } from "../errors/api-error.js";
import { noteErrorCode } from "../observability/request-observation.js";

/** Fastify's own errors, translated into the API's codes. */
const FASTIFY_CODES: Record<string, ApiError["code"]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "payload_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_EMPTY_JSON_BODY: "invalid_request",
  FST_ERR_CTP_INVALID_JSON_BODY: "invalid_request",
  FST_ERR_VALIDATION: "invalid_request",
};

/** Every HTTP error, including unknown routes, answers {"error":{"code","message"}}. */
export function registerErrorHandlers(app: FastifyInstance, log: Logger): void {
  app.setNotFoundHandler((request, reply) => {
    const error = new ApiError("not_found", `No route for ${request.method} ${request.url.split("?")[0]}.`);
    noteErrorCode(request, error.code);
    return reply.code(404).send({ error: { code: error.code, message: error.message } });
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped = error.code ? FASTIFY_CODES[error.code] : undefined;
    const apiError = mapped ? new ApiError(mapped, error.message) : toApiError(error);
    if (apiError.code === "internal_error") log.error({ err: error, requestId: request.observation?.requestId }, "unhandled error");
    noteErrorCode(request, apiError.code);
    // e.g. Retry-After on storage_unavailable.
    reply.headers(apiError.headers);
    return reply.code(apiError.httpStatus).send({ error: { code: apiError.code, message: apiError.message } });
  });
}
