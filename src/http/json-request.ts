import type { FastifyRequest } from "fastify";
import { ApiError } from "../errors/api-error.js";

/*
 * A JSON route (POST /v1/moderate, /v1/moderations) checks a request in the order every
 * protocol follows (docs/architecture.md, "Auth and body checks"):
 *   1. the Content-Type, a header like an RPC route's protocol: anything but JSON is refused (415);
 *   2. the body, read within the limit (413), so that every answer is signed over the caller's bytes;
 *   3. the key: without a live one the body is never parsed, and the chain refuses the call (401);
 *   4. parsing, for a live key only; a problem is raised inside the chain, after auth (400).
 * Steps 1 and 2 are answered at once, outside the chain: they say only what the route accepts.
 */

/** Step 1: the refusal of a body that is not sent as JSON, or undefined when it is. */
export function unsupportedContentType(request: FastifyRequest): ApiError | undefined {
  const type = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
  if (type === "application/json") return undefined;
  return new ApiError("unsupported_media_type", "The request body must be JSON, sent with Content-Type: application/json.");
}

/** The Content-Length the caller announced, so that step 2 refuses an oversized body before reading it. */
export function declaredLength(request: FastifyRequest): number | undefined {
  const raw = request.headers["content-length"];
  return raw === undefined ? undefined : Number(raw);
}
