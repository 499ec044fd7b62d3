import type { ContextValues } from "@connectrpc/connect";
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import type { HeldBodies } from "../base/held-bodies.js";
import { MAX_REQUEST_BYTES, UNAUTHENTICATED_BODY_KEEP } from "../base/limits.js";
import { knownWithoutLiveKey, liveCallerOf } from "../interceptors/auth.js";
import { charsetOf, isUtf8OrUnset, mediaTypeOf } from "../base/media-type.js";
import { ApiError } from "../errors/api-error.js";
import { noteErrorCode, observeAs } from "../observability/request-observation.js";
import { incomingHeaderReader } from "./plain-headers.js";
import { CallerHungUpError, readBody } from "./read-body.js";
import { limitBodyArrival } from "../base/body-arrival.js";

/*
 * A JSON route (POST /v1/moderate, /v1/moderations) checks a request in the order every
 * protocol follows (docs/architecture.md, "Auth and body checks"):
 *   1. the Content-Type, a header like an RPC route's protocol: anything but JSON is refused (415),
 *      and so is a Content-Encoding (415 as well: the routes inflate nothing);
 *   2. the body, read within the limit (413), so that every answer is signed over the caller's
 *      bytes; without a live key at most 64 KiB of it is held (a longer one is signed as no body);
 *   3. the key (looked up before the body is read, and again once it is in if that took over
 *      KEY_LOOKUP_TRUSTED_MS): without a live one nothing is parsed, and the chain refuses the call (401);
 *   4. the rate limit, charged here for the chain to apply (interceptors/rate-limit-ahead.ts): an
 *      account over it gets its 429 without its body parsed;
 *   5. parsing; a problem is raised inside the chain, after auth and the rate limit (400).
 * The 415 and 413 refusals are answered at once, outside the chain: they say only what the route accepts.
 */

/**
 * For a JSON route's scope: every body reaches the handler unread, whatever its Content-Type,
 * for takeJsonRequest to read (the chain must run, auth first, even when the body is
 * unacceptable). The pass-through is registered for application/json as well as for any type:
 * fastify remembers the parser it found for a Content-Type only when one is registered for that
 * type, so with the catch-all alone it parsed the header (slices, lower-casing, regular
 * expressions, a Map) on every request. Both are the same function: nothing else changes.
 */
export function passBodiesThrough(scope: FastifyInstance): void {
  const passThrough = (_request: FastifyRequest, payload: unknown, done: (error: Error | null, body?: unknown) => void) => done(null, payload);
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser("*", passThrough);
  scope.addContentTypeParser("application/json", passThrough);
}

/**
 * A JSON route's onRequest hook: every answer of the route is counted and logged as json, not only
 * those the chain gives (invoke-chain.ts names it there too). Refusals made before it (415, 413),
 * a caller who hung up mid-body (499) and a late body (408) were counted as http.
 */
export const observeAsJson: onRequestHookHandler = (request, _reply, done) => {
  observeAs(request, "json");
  done();
};

/** Whether the client holds its body back until `100 Continue`, which a call without a live key never gets (edge/expect-continue.ts). */
function awaitsContinue(request: FastifyRequest["raw"]): boolean {
  return request.httpVersionMajor === 1 && request.headers.expect?.trim().toLowerCase() === "100-continue";
}

/** Step 1's message for a body not sent as JSON (unreadable-content-type.ts says it too). */
export const NOT_JSON_MESSAGE = "The request body must be JSON, sent with Content-Type: application/json.";

/** Step 1: the refusal of a body that is not sent as plain JSON, or undefined when it is. */
function unsupportedBody(request: FastifyRequest): ApiError | undefined {
  const header = request.headers["content-type"];
  // The usual header as it is, before the general reading (a split, a trim and a lower-casing).
  if (header !== "application/json" && mediaTypeOf(header) !== "application/json") {
    return new ApiError("unsupported_media_type", NOT_JSON_MESSAGE);
  }
  // JSON is UTF-8 (RFC 8259, 8.1): a body declared in another charset was read as UTF-8 anyway
  // ("charset=utf-16" with UTF-8 bytes answered 200; real UTF-16 "not valid JSON"), where Connect
  // answers 415.
  const charset = charsetOf(header);
  if (!isUtf8OrUnset(charset)) {
    return new ApiError("unsupported_media_type", `The JSON routes read UTF-8 only (got charset "${charset.slice(0, 40)}"): send the body as UTF-8.`);
  }
  // Read as plain bytes whatever it said: a gzip body failed as "not valid JSON", and a plain one
  // sent as gzip was accepted.
  const encoding = request.headers["content-encoding"];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
    // 415, as RFC 9110 (8.4.1) has it for a content coding the server does not accept.
    // Accept-Encoding on the 415 names what is taken (RFC 9110 section 15.5.16): no coding.
    return new ApiError("unsupported_media_type", `The JSON routes take no Content-Encoding (got "${encoding.slice(0, 40)}"): send the body uncompressed.`, { headers: { "accept-encoding": "identity" } });
  }
  return undefined;
}

/** The Content-Length the caller announced, so that step 2 refuses an oversized body before reading it. */
function declaredLength(request: FastifyRequest): number | undefined {
  const raw = request.headers["content-length"];
  return raw === undefined ? undefined : Number(raw);
}

/** A live-key check (interceptors/auth.ts createApiKeyCheck): a boolean at once when the key is cached. */
type LiveKeyCheck = (header: { get(name: string): string | null }, values: ContextValues) => boolean | Promise<boolean>;

/** Charges a live key's call to its account (createRateLimitAhead's charge): false when it is refused. */
type RateLimitCharge = (values: ContextValues) => boolean | Promise<boolean>;

/** What steps 1 to 5 leave for a JSON route to answer. */
export interface JsonRequestIntake<T> {
  /** The body as received; undefined when it was not read (too large). Every answer is signed over it. */
  requestBody: Uint8Array | undefined;
  /** Step 1 or 2 refused the request: answer it at once, outside the chain, in the route's error shape. */
  early?: ApiError;
  /** The parsed body, for a live key within its rate limit and a body that parsed. */
  parsed?: T;
  /** A body problem to raise inside the chain, after auth and the rate limit (step 5). */
  bodyError?: ApiError;
}

/**
 * Steps 1 to 5 for both JSON routes. Returns undefined when the caller hung up (nobody is left
 * to answer). An early refusal is noted for the request log, and a body left unread closes an
 * HTTP/1.1 connection: no other request can follow it there.
 */
export async function takeJsonRequest<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  auth: { hasLiveKey: LiveKeyCheck; chargeRateLimit: RateLimitCharge; contextValues: ContextValues; heldBodies: HeldBodies; stop?: AbortSignal | undefined },
  parse: (bytes: Uint8Array) => T | Promise<T>,
): Promise<JsonRequestIntake<T> | undefined> {
  const refusal = unsupportedBody(request);
  const intake: JsonRequestIntake<T> = { requestBody: undefined };
  try {
    const declared = declaredLength(request);
    const headers = incomingHeaderReader(request.headers);
    const live = refusal ? false : auth.hasLiveKey(headers, auth.contextValues);
    // A key the caller cache knows answers at once: no promise turn on the hot path.
    if (live === true || (live !== false && (await live))) {
      // Held until the answer is finished (or the caller gone): parsing and judging hold more.
      const hold = auth.heldBodies.hold(liveCallerOf(auth.contextValues)!.accountId);
      reply.raw.once("close", hold.release);
      // A read that fails gives its bytes back at once: on HTTP/2 the stream may outlive the answer.
      const bytes = (await readBody(request.raw, MAX_REQUEST_BYTES, declared, MAX_REQUEST_BYTES, hold, auth.stop).catch((error: unknown) => {
        hold.release();
        throw error;
      }))!;
      intake.requestBody = bytes;
      // Asked again: the look-up above was made when the headers came, perhaps minutes ago. A key
      // revoked since (or its account disabled) is refused by the chain, neither charged nor parsed.
      const stillLive = auth.hasLiveKey(headers, auth.contextValues);
      if (stillLive === true || (stillLive !== false && (await stillLive))) {
        const allowed = auth.chargeRateLimit(auth.contextValues);
        if (allowed === true || (allowed !== false && (await allowed))) {
          const parsed = parse(bytes);
          // A large body is parsed in a compute worker (json-off-thread.ts); a small one at once.
          intake.parsed = parsed instanceof Promise ? await parsed : parsed;
        }
      }
    } else {
      // Without a live key the body is read to its end, so the caller can read its refusal (an
      // answer sent mid-upload, with the connection closed, reached many clients as a broken pipe),
      // but at most UNAUTHENTICATED_BODY_KEEP bytes of it are held, to bind the refusal's signature
      // to, and on HTTP/2 it has UNTRUSTED_ARRIVAL_MS to come (unless the store could not say).
      if (knownWithoutLiveKey(auth.contextValues)) limitBodyArrival(request.raw);
      // A client that waits for `100 Continue` (never sent without a live key, expect-continue.ts)
      // is answered at once over no body, and its connection closed: it has sent none. (An
      // announced length over the limit is still refused as such first, step 2.)
      if (awaitsContinue(request.raw) && (declared === undefined || declared <= MAX_REQUEST_BYTES)) {
        intake.requestBody = new Uint8Array(0);
        reply.header("connection", "close");
      } else {
        intake.requestBody = await readBody(request.raw, MAX_REQUEST_BYTES, declared, UNAUTHENTICATED_BODY_KEEP, undefined, auth.stop);
      }
    }
  } catch (error) {
    // Nobody is left to answer (and it is not the server's error to log).
    if (error instanceof CallerHungUpError) return undefined;
    if (!(error instanceof ApiError)) throw error;
    intake.bodyError = error;
  }
  // Refused before the whole body was read: too large, or past the bound on held bodies.
  const unread = intake.bodyError?.code === "payload_too_large" || intake.bodyError?.code === "service_unavailable";
  const early = refusal ?? (unread ? intake.bodyError : undefined);
  if (early) {
    intake.early = early;
    noteErrorCode(request, early.code);
    if (unread && request.raw.httpVersionMajor === 1) reply.header("connection", "close");
  }
  return intake;
}
