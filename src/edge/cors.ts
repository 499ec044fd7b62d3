import { cors as connectCors } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import {
  CONTENT_DIGEST_HEADER, REQUEST_DIGEST_HEADER, RESPONSE_DIGEST_HEADER, RPC_STATUS_HEADER, SIGNATURE_HEADER, SIGNATURE_INPUT_HEADER,
} from "../signing/headers.js";

/** What a browser page may send: every protocol's own headers, the key, a request id. */
const ALLOWED_HEADERS = [...connectCors.allowedHeaders, "x-api-key", "authorization", "x-request-id"].join(", ");

/**
 * What a browser page may read: the gRPC-Web status, the signature (so the page can verify it),
 * the stable error code, the request id and the rate-limit fields.
 */
export const EXPOSED_HEADERS = [
  ...connectCors.exposedHeaders,
  SIGNATURE_HEADER, SIGNATURE_INPUT_HEADER, CONTENT_DIGEST_HEADER, REQUEST_DIGEST_HEADER, RESPONSE_DIGEST_HEADER, RPC_STATUS_HEADER,
  "x-error-code", "x-request-id", "retry-after", "ratelimit", "ratelimit-policy", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset",
].join(", ");

/** How long a browser may reuse a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE = "7200";

/**
 * Cross-origin calls from the pages of `origins` (CORS_ORIGINS; "*" for any), for gRPC-Web,
 * Connect and the JSON routes from a browser. Registered only when origins are configured, so a
 * deployment without it pays nothing per request. The headers go on the raw response, not
 * fastify's reply: every answer of the API is written to the raw response as signed (send-json.ts,
 * Connect's adapter), which merges them; @fastify/cors sets them on the reply, where they are lost.
 * A preflight (OPTIONS with Access-Control-Request-Method) from an allowed origin is answered here,
 * 204, before any route; one from another origin goes on to the routes (a 405 or 404, no CORS headers).
 */
export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const anyOrigin = origins.includes("*");
  const allowed = new Set(origins);
  app.addHook("onRequest", (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin === undefined || !(anyOrigin || allowed.has(origin))) return done();
    const raw = reply.raw;
    raw.setHeader("access-control-allow-origin", anyOrigin ? "*" : origin);
    if (!anyOrigin) raw.setHeader("vary", "Origin");
    if (request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined) {
      reply.hijack();
      raw.writeHead(204, {
        "access-control-allow-methods": connectCors.allowedMethods.join(", "),
        "access-control-allow-headers": ALLOWED_HEADERS,
        "access-control-max-age": PREFLIGHT_MAX_AGE,
        "content-length": "0",
      });
      raw.end();
      return;
    }
    raw.setHeader("access-control-expose-headers", EXPOSED_HEADERS);
    done();
  });
}
