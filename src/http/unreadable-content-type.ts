import type { FastifyError, FastifyInstance } from "fastify";
import { ApiError } from "../errors/api-error.js";
import { fastifyCodeOf } from "../errors/fastify-codes.js";
import { noteErrorCode } from "../observability/request-observation.js";
import type { Signer } from "../signing/signer.js";
import { NOT_JSON_MESSAGE } from "./json-request.js";
import { sendSignedJson } from "./send-json.js";

/** A route's error body and status for a code and message (its own shape, or OpenAI's). */
export type ErrorRendering = (status: number, code: string, message: string) => { status: number; body: unknown };

/**
 * For a JSON route's scope: a Content-Type fastify cannot parse at all ("application/json,
 * text/plain", "/json", an empty header) is refused by fastify before the handler runs, and the
 * root error handler answered it in /v1/moderate's shape with fastify's "Unsupported Media Type"
 * (OpenAI's SDKs then found no `type` on /v1/moderations; found by an audit). Answered here as the
 * route's own first step refuses any body not sent as JSON: its message, its shape, signed and
 * bound to an empty body like every refusal made before the body is read. Any other error goes on
 * to the root handler (edge/error-handlers.ts).
 */
export function refuseUnreadableContentTypes(scope: FastifyInstance, route: string, render: ErrorRendering, signing: () => { signer: Signer; nowMs: number }): void {
  scope.setErrorHandler(async (error: FastifyError, request, reply) => {
    if (fastifyCodeOf(error) !== "unsupported_media_type") throw error;
    const refusal = new ApiError("unsupported_media_type", NOT_JSON_MESSAGE);
    noteErrorCode(request, refusal.code);
    const { status, body } = render(refusal.httpStatus, refusal.code, refusal.message);
    return sendSignedJson(reply, { ...signing(), requestBody: undefined, scope: { route } }, status, body, []);
  });
}
