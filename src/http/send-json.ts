import type { OutgoingHttpHeaders } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ERROR_CODE_HEADER } from "../errors/api-error.js";
import { noteErrorCode, observeAs } from "../observability/request-observation.js";
import { JSON_CONTENT_TYPE, signOutcome, type SignedJson } from "../signing/sign-outcome.js";
import type { SignatureScope } from "../signing/scope.js";
import type { Signer } from "../signing/signer.js";

const SIGNED_ANSWER_CACHING = "no-store, no-transform";

/** Headers that describe one HTTP message and must not be copied from RPC metadata. */
const HOP_HEADERS = new Set(["content-type", "content-length", "content-encoding", "transfer-encoding", "connection"]);

/** The key and the time an answer is signed with, read as it is sent (the key ring can rotate). */
export function signingNow(ctx: { signingKeys: { signer: Signer }; clock: () => number }): { signer: Signer; nowMs: number } {
  return { signer: ctx.signingKeys.signer, nowMs: ctx.clock() };
}

/**
 * What a JSON answer is signed with and bound to: the key, the time, the request body (undefined
 * when none was read) and the route and caller (signing/scope.ts; undefined for no API route).
 */
export interface JsonSigning {
  signer: Signer;
  nowMs: number;
  requestBody: Uint8Array | undefined;
  scope: SignatureScope | undefined;
}

/**
 * Serializes `body` once, signs those bytes (RFC 9421, bound to `requestBody`; empty when the
 * request had none or it was never read) and sends them with the signature headers.
 */
export async function sendSignedJson(
  reply: FastifyReply,
  signing: JsonSigning,
  status: number,
  body: unknown,
  headerSets: Headers[],
): Promise<FastifyReply> {
  // An error's stable code also goes in x-error-code, as on every protocol (the chain's errors
  // carry it already; early refusals, 404 and 405 did not).
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  if (typeof code === "string" && !headerSets.some((set) => set.has(ERROR_CODE_HEADER))) headerSets = [...headerSets, new Headers({ [ERROR_CODE_HEADER]: code })];
  // A HEAD answer sends no body, so it is signed as one with none (its Content-Digest that of an
  // empty body): signed over the body it did not send, no caller could verify it (the 405s, then
  // the 404, each had been mended on its own).
  return sendSignedJsonText(reply, signing, status, reply.request.method === "HEAD" ? "" : JSON.stringify(body), headerSets);
}

/** sendSignedJson for a body already rendered as JSON text (a Moderate answer: moderateAnswerJsonText). */
export async function sendSignedJsonText(
  reply: FastifyReply,
  signing: JsonSigning,
  status: number,
  json: string,
  headerSets: Headers[],
): Promise<FastifyReply> {
  const signed = await signOutcome(signing.signer, { kind: "json", status, json, requestBody: signing.requestBody, nowMs: signing.nowMs, scope: signing.scope });
  return sendJsonSignedAhead(reply, status, signed, headerSets);
}

/**
 * Sends JSON that signOutcome already signed (here or in a compute worker) with its
 * signature headers, plus headers copied from RPC metadata (e.g. rate limit). The text goes out
 * exactly as signed, written straight to Node's response: fastify's send would re-parse the
 * Content-Type and copy every header once more, which showed in profiles on every answer.
 * Headers already set on the reply (e.g. X-Request-Id, Connection: close) are kept; a later
 * source wins a name, as before. The head is one object filled by plain assignments: object
 * spreads (`{ ...replyHeaders, ...signed.headers }`) cost about 10 µs per answer once the reply
 * carried a header (X-Request-Id), against under 1 µs this way (measured in process).
 */
export function sendJsonSignedAhead(reply: FastifyReply, status: number, signed: SignedJson, headerSets: Headers[]): FastifyReply {
  const headers: OutgoingHttpHeaders = {};
  const own = reply.getHeaders();
  for (const name in own) headers[name] = own[name];
  for (const name in signed.headers) headers[name] = signed.headers[name as keyof SignedJson["headers"]];
  for (const set of headerSets) {
    set.forEach((value, name) => {
      if (!HOP_HEADERS.has(name)) headers[name] = value;
    });
  }
  headers["content-type"] = JSON_CONTENT_TYPE;
  headers["content-length"] = signed.byteLength;
  // A signed answer is one caller's (GET /v1/usage is keyed by X-API-Key, which no cache varies
  // on: a stock Varnish served one account's usage to another and to callers with no key, found
  // by an audit), and a cache or proxy that rewrote it (compression, a charset) would break its
  // Content-Digest: never stored, never transformed, never sniffed as anything but JSON.
  headers["cache-control"] ??= SIGNED_ANSWER_CACHING;
  headers["x-content-type-options"] = "nosniff";
  reply.hijack();
  reply.raw.writeHead(status, headers);
  // A string body goes out with the head in one write (as UTF-8: the bytes that were signed).
  reply.raw.end(signed.json, "utf8");
  return reply;
}

/**
 * Every other method on a JSON route: a 405 in the route's error shape (its own, or OpenAI's),
 * signed like its other answers; no body was read, so it is bound to an empty one. `allowed` is
 * the route's one method. A GET route is registered without fastify's HEAD route: a HEAD answer
 * carries the digest of a body it does not send, which no caller can verify.
 */
export function registerMethodNotAllowed(
  app: FastifyInstance, url: string, allowed: "POST" | "GET", signing: () => { signer: Signer; nowMs: number }, body: unknown,
): void {
  const handler = (request: FastifyRequest, reply: FastifyReply) => {
    // Counted under the route and as json, like its other answers, also when the not-found or the
    // error handler answers with it (a method no route is registered for: PROPFIND, QUERY, FOO).
    const observation = observeAs(request, "json");
    if (observation) observation.route = url;
    return answerMethodNotAllowed(request, reply, { ...signing(), scope: { route: url } }, allowed, body);
  };
  app.route({
    method: allowed === "GET" ? ["HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] : ["GET", "PUT", "PATCH", "DELETE", "OPTIONS"],
    url,
    handler,
  });
  let byUrl = methodNotAllowedAnswers.get(app);
  if (!byUrl) methodNotAllowedAnswers.set(app, (byUrl = new Map()));
  byUrl.set(url, handler);
}

/**
 * Per server, the 405 answer of each path registerMethodNotAllowed covers. A method no route here
 * is registered for (TRACE, PROPFIND, PURGE) reaches the not-found handler, which answers with it:
 * that handler, left to find the path's methods itself, took these 405 routes' own methods for
 * served ones ("Use GET or HEAD or POST or PUT or PATCH or DELETE", in /v1/moderate's shape on
 * /v1/moderations too).
 */
const methodNotAllowedAnswers = new WeakMap<FastifyInstance, Map<string, (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>>>();

/** The 405 answer registerMethodNotAllowed registered for `path` on `app`, if any. */
export function methodNotAllowedAnswerOf(app: FastifyInstance, path: string): ((request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) | undefined {
  return methodNotAllowedAnswers.get(app)?.get(path);
}

/** The signed 405 for a method `url` is not served with; `allowed` names the ones it is. */
export function answerMethodNotAllowed(
  request: FastifyRequest, reply: FastifyReply, signing: Omit<JsonSigning, "requestBody">, allowed: string, body: unknown,
): Promise<unknown> {
  noteErrorCode(request, "method_not_allowed");
  reply.header("allow", allowed);
  return sendSignedJson(reply, { ...signing, requestBody: undefined }, 405, body, []);
}
