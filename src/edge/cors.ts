import fastifyCors from "@fastify/cors";
import { cors as connectCors } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import {
  ACCOUNT_HEADER, ROUTE_HEADER,
  CONTENT_DIGEST_HEADER, REQUEST_DIGEST_HEADER, RESPONSE_DIGEST_HEADER, RPC_STATUS_HEADER, SIGNATURE_HEADER, SIGNATURE_INPUT_HEADER,
} from "../signing/headers.js";

/** What a browser page may send: every protocol's own headers (Connect's list), the key, a request id. */
/**
 * The official OpenAI SDKs send x-stainless-* headers on every call (language, runtime, retry
 * count): without them here a browser refused the preflight of every /v1/moderations call.
 */
const OPENAI_SDK_HEADERS = ["x-stainless-arch", "x-stainless-lang", "x-stainless-os", "x-stainless-package-version", "x-stainless-retry-count", "x-stainless-runtime", "x-stainless-runtime-version", "x-stainless-timeout", "openai-organization", "openai-project"];
const ALLOWED_HEADERS = [...connectCors.allowedHeaders, "x-api-key", "authorization", "x-request-id", ...OPENAI_SDK_HEADERS];

/**
 * What a browser page may read: the gRPC-Web status (Connect's list), the signature (so the page
 * can verify it), the stable error code, the request id and the rate-limit fields.
 */
export const EXPOSED_HEADERS = [
  ...connectCors.exposedHeaders,
  SIGNATURE_HEADER, SIGNATURE_INPUT_HEADER, CONTENT_DIGEST_HEADER, REQUEST_DIGEST_HEADER, RESPONSE_DIGEST_HEADER, RPC_STATUS_HEADER, ROUTE_HEADER, ACCOUNT_HEADER,
  "x-error-code", "x-request-id", "retry-after", "ratelimit", "ratelimit-policy", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset",
  // /v1/moderations also names them as OpenAI does (openai-rate-limit-headers.ts).
  "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
];

/**
 * Cross-origin calls from the pages of `origins` (CORS_ORIGINS; "*" for any): gRPC-Web, Connect
 * and the JSON routes from a browser, with @fastify/cors. Registered only when origins are
 * configured, so a deployment without it pays nothing per request. Its headers go on the reply,
 * which every answer's head copies (send-json.ts, Connect's adapter, unknown-rpc-method.ts); a
 * preflight is answered in its onRequest hook, 204, before any route or key check.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  await app.register(fastifyCors, {
    origin: origins.includes("*") ? "*" : [...origins],
    methods: [...connectCors.allowedMethods],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 7200,
  });
}
