import type { BodyHold, HeldBodies } from "../base/held-bodies.js";
import { heldBodiesRefusal } from "../errors/held-bodies-refusal.js";
import { BodyBuffer } from "../base/body-buffer.js";
import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { MAX_ITEMS } from "../base/limits.js";
import { knownWithoutLiveKey, liveCallerOf } from "../interceptors/auth.js";
import { type DeadlineHeader, endlessTimeout, expectedTimeoutSyntax, malformedTimeout } from "../interceptors/deadline-header.js";
import { createContextValues, type ConnectError, type ConnectRouter, type ContextValues } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerRequest } from "@connectrpc/connect/protocol";
import { ApiError, ERROR_CODE_HEADER, toConnectError } from "../errors/api-error.js";
import { observationKey } from "../observability/request-observation.js";
import { decodedRequestKey, deferredBodyRefusalKey, untrustedArrivalKey } from "../interceptors/context-keys.js";
import { tooManyItems, tooManyJsonValues, tooManyMessageValues } from "../moderation/validate-request.js";
import { signConnectError } from "../signing/sign-outcome.js";
import type { Signer } from "../signing/signer.js";
import { bodyEncoding, bodyFormat, encodingHeader, decodeMessage, emptyMessageBody, inflateMessage, isSupportedEncoding, MAX_INFLATION_RATIO, SUPPORTED_ENCODINGS, unwrapMessage, withCanonicalEncoding, type BodyFormat } from "./decode-check.js";
import { MAX_UNKNOWN_FIELDS, outlineRequest } from "./count-input-items.js";

/** Most bytes a method callable without an API key reads or inflates (its messages are tiny). */
export const PUBLIC_BODY_LIMIT = 64 * 1024;
const PUBLIC_LIMIT: BodyLimit = { bytes: PUBLIC_BODY_LIMIT, why: "" };

/**
 * A message larger than this is decoded only once the account is known not to be over its rate
 * limit (asked without charging: rate-limit-ahead.ts). A smaller one is decoded first, as before:
 * asking the limiter twice (a Redis round trip) would cost such a call more than decoding it.
 */
const RATE_LIMIT_FIRST_BYTES = 64 * 1024;

/** Most bytes a method's body may have, as sent and once inflated, and why it may be that large. */
export interface BodyLimit {
  bytes: number;
  /** Ends the refusal's sentence, e.g. ", more than ten maximal items need"; may be empty. */
  why: string;
  /**
   * Most values a body may hold, counted before it is parsed or decoded: a Connect JSON body's
   * object members and array elements (json-outline.ts), a protobuf message's list elements and
   * map entries (wire-walk.ts); absent: no bound. Connect parses the whole text before it can
   * refuse an unknown key: a Moderate body of five million unknown keys held the event loop for
   * seconds, and fromBinary builds every element of a list before the policy's count refuses it.
   */
  values?: number;
}

interface RequestBodyGuardDeps {
  /** The limit of each method that needs an API key (public methods get PUBLIC_BODY_LIMIT). */
  limitOf: (method: DescMethod) => BodyLimit;
  signer: Signer;
  now: () => number;
  /** The services whose unary bodies are decoded here (after auth, for those that need a key). */
  decodedServices: readonly DescService[];
  needsApiKey: (method: DescMethod) => boolean;
  /** Whether the call presents a live key (the auth interceptor then refuses the others, with the right code). */
  hasLiveKey: (header: Headers, values: ContextValues) => boolean | Promise<boolean>;
  /** Whether the live caller's account is over its rate limit, asked without charging; a yes is kept for the interceptor to answer. */
  isOverRateLimit: (values: ContextValues) => boolean | Promise<boolean>;
  /** The process's bound on held request bodies (base/held-bodies.ts). */
  heldBodies: HeldBodies;
  /** Methods whose JSON bodies may not hold unknown fields (Connect ignores them by default). */
  strictJson: (method: DescMethod) => boolean;
}

/**
 * Puts our own checks in front of every RPC handler the router has, before Connect reads the body.
 * For the unary methods of `decodedServices`, the guard reads, inflates and decodes the body
 * itself, in this order, each step only if the one before passed:
 *   1. the bytes as sent, within the limit (a gRPC envelope announcing more is refused at once);
 *      without a live key (looked up first, from the headers) none of them are held;
 *   2. the API key (`hasLiveKey`): without a live one nothing is held, inflated or decoded, and
 *      the interceptor chain refuses the call with missing_api_key / invalid_api_key, signed over
 *      an empty request (no work is done for a caller before it is authenticated); asked again
 *      once the body is in, so that a key revoked while it arrived gets nothing decoded either;
 *   3. the framing (one gRPC message, nothing after it); for a message over 64 KiB, the rate
 *      limit (an account over it gets its 429 from the chain, the message never inflated or
 *      decoded); inflating within the limit and a ratio cap (decode-check.ts; it stops there,
 *      never allocating the limit); counting the input items without decoding (more than ten:
 *      too_many_items from the chain, after the rate limit, as the handler would); and decoding,
 *      once: Connect is handed an empty placeholder message and the chain gets the decoded one
 *      (decoded-request.ts).
 * Other handlers (reflection, streams) get the byte limit, and Connect decodes for them.
 * Every handler gets a malformed grpc-timeout / connect-timeout-ms refused.
 *
 * Refusals made here carry the API's code (payload_too_large, invalid_request) and a signature
 * like every other RPC error, bound to an empty request as there is no decoded request to bind
 * to. Connect's own answers had neither, and it answered undecodable protobuf with INTERNAL.
 */
export function guardRpcRequestBodies(router: ConnectRouter, deps: RequestBodyGuardDeps): void {
  router.handlers.forEach((handler, i) => {
    router.handlers[i] = guard(handler, deps);
  });
}

/** The guard's deps for one handler: its refusals are signed for its method (signing/scope.ts). */
type HandlerDeps = RequestBodyGuardDeps & { route: string };

function guard(handler: UniversalHandler, guardDeps: RequestBodyGuardDeps): UniversalHandler {
  const deps: HandlerDeps = { ...guardDeps, route: handler.requestPath };
  const decodes = handler.method.methodKind === "unary" && deps.decodedServices.includes(handler.service);
  // Public methods, streams included (Health.Watch, reflection), take PUBLIC_BODY_LIMIT: a stream's
  // 4 GB length prefix was refused as over Moderate's 70 MB, which is no limit of theirs.
  const limit = !deps.needsApiKey(handler.method) ? PUBLIC_LIMIT : deps.limitOf(handler.method);
  // Every body the handler reads goes through notingRefusal, whichever of the paths below made it.
  const answer = (request: UniversalServerRequest) => handler(isAsyncIterable(request.body) ? { ...request, body: notingRefusal(request.body, request) } : request);
  const guarded = (request: UniversalServerRequest) => {
    const timeout = malformedTimeout(request.header);
    // Connect would refuse it before reading the body, unsigned: take the header out and refuse it ourselves.
    if (timeout) return answer({ ...request, header: without(request.header, timeout.name), body: failing(() => badTimeout(deps, timeout)) });
    // A deadline past what a timer can hold (about 24.8 days; clients send "99999999S" to mean none)
    // would fire at once in Connect's setTimeout: it is no deadline.
    const endless = endlessTimeout(request.header);
    if (endless) request = { ...request, header: without(request.header, endless) };
    // A public method's body is small and sent at once by any real client, key header or not.
    if (!deps.needsApiKey(handler.method)) request.contextValues?.get(untrustedArrivalKey)();
    const sentFormat = bodyFormat(request.header.get("content-type"));
    if (sentFormat) request = { ...request, header: withCanonicalEncoding(request.header, sentFormat) };
    if (!isAsyncIterable(request.body)) return answer(request);
    const format = decodes ? sentFormat : undefined;
    const encoding = format && bodyEncoding(request.header, format);
    // An unknown content type: Connect refuses it before reading the body.
    if (!format) return answer({ ...request, body: limitBody(request.body, request.header, limit, deps) });
    // An unknown compression: Connect would refuse it unsigned, with no error code; the header goes
    // so that it reads the body, whose first read answers our refusal (nothing is read or inflated).
    if (!isSupportedEncoding(encoding)) return answer({ ...request, header: without(request.header, encodingHeader(format)), body: failing(() => unsupportedEncoding(deps, encoding!, format)) });
    const contextValues = request.contextValues ?? createContextValues();
    const body = once(async () => {
      const authenticated = !deps.needsApiKey(handler.method) || (await deps.hasLiveKey(request.header, contextValues));
      // No live key behind it: on HTTP/2 the body gets a short time to arrive, not REQUEST_TIMEOUT_MS
      // (unless the store could not say: such a call is refused storage_unavailable, retryable).
      if (!authenticated && knownWithoutLiveKey(contextValues)) contextValues.get(untrustedArrivalKey)();
      // Without a live key the body is still read to its end (an answer sent mid-upload reached many
      // clients as a broken pipe), but none of it is held, and nothing decoded.
      // A live key's body is held until the call ends (the request's signal, aborted then); public
      // methods' small bodies are not counted, so callers without a key cannot fill the bound.
      const caller = authenticated ? liveCallerOf(contextValues) : undefined;
      const hold = caller && deps.needsApiKey(handler.method) ? deps.heldBodies.hold(caller.accountId) : undefined;
      if (hold) {
        request.signal.addEventListener("abort", hold.release, { once: true });
        if (request.signal.aborted) hold.release();
      }
      // A read that fails gives its bytes back at once: on HTTP/2 the stream may outlive the answer.
      const bytes = await readWithin(request, limit, format.enveloped, deps, authenticated ? undefined : 0, hold).catch((error: unknown) => {
        hold?.release();
        throw error;
      });
      const live = stillLive(authenticated, handler.method, request.header, contextValues, deps);
      const message = live === true || (live !== false && (await live)) ? await decodeLive(handler.method, bytes!, format, encoding, limit, deps, contextValues) : undefined;
      if (message) contextValues.set(decodedRequestKey, message);
      return emptyMessageBody(format, encoding);
    });
    // Connect unary checks the bytes it reads against Content-Length (and allocates that much up front).
    const header = format.enveloped ? request.header : without(request.header, "content-length");
    return answer({ ...request, header, body, contextValues });
  };
  // Keep requestPath, service, method, protocol names: the fastify plugin routes by them.
  return Object.assign(guarded, handler);
}

/**
 * Whether a call found live from its headers is still live once its body is in (the body may take
 * up to REQUEST_TIMEOUT_MS): the key is looked up again past KEY_LOOKUP_TRUSTED_MS (auth.ts), and
 * one revoked meanwhile (or its account disabled) leaves the body undecoded for the chain to
 * refuse, uncharged. A public method's call needs no key, so none is asked for.
 */
function stillLive(authenticated: boolean, method: DescMethod, header: Headers, values: ContextValues, deps: HandlerDeps): boolean | Promise<boolean> {
  return authenticated && (!deps.needsApiKey(method) || deps.hasLiveKey(header, values));
}

/**
 * The decoded request of a caller with a live key, or its refusal (undecodable, too large once
 * inflated); undefined when it is left undecoded for the chain to refuse (over the rate limit,
 * or too many items: `values` holds why), which then sees an empty request and binds its refusal to it.
 */
async function decodeLive(
  method: DescMethod, bytes: Uint8Array, format: BodyFormat, encoding: string | undefined, limit: BodyLimit, deps: HandlerDeps, values: ContextValues,
): Promise<object | undefined> {
  const unwrapped = unwrapMessage(bytes, format, encoding);
  if (!unwrapped.ok) throw await undecodable(deps, method, unwrapped.reason);
  if (unwrapped.bytes.byteLength > RATE_LIMIT_FIRST_BYTES && (await deps.isOverRateLimit(values))) return undefined;
  const inflated = await inflateMessage(unwrapped.bytes, unwrapped.compressed ? encoding : undefined, limit.bytes);
  if (!inflated.ok && !inflated.tooLarge) throw await undecodable(deps, method, inflated.reason);
  if (!inflated.ok) throw await (inflated.inflatedPast < limit.bytes ? inflatesTooFar(deps, inflated.inflatedPast) : payloadTooLarge(deps, limit));
  const { items, unknownFields, values: held } = outlineRequest(method.input, format, inflated.bytes);
  if (unknownFields > MAX_UNKNOWN_FIELDS) throw await tooManyUnknownFields(deps, method, unknownFields);
  if (items !== undefined && items > MAX_ITEMS) {
    values.set(deferredBodyRefusalKey, tooManyItems(items));
    return undefined;
  }
  if (limit.values !== undefined && held > limit.values) throw await signedError(deps, format.json ? tooManyJsonValues(limit.values) : tooManyMessageValues(limit.values));
  const decoded = decodeMessage(method.input, format, inflated.bytes, deps.strictJson(method));
  if (decoded.ok) return decoded.message;
  throw await undecodable(deps, method, decoded.reason, decoded.explained);
}

/**
 * Reads the whole body, refusing as soon as it passes `limit` (or announces more, in its
 * Content-Length or gRPC envelope). With `keep`, a body longer than that is read to its end but
 * not held, and undefined returned. Iterated by hand, not with for-await: returning early would
 * destroy the request stream, and with it the connection, before the answer can be sent.
 */
async function readWithin(request: UniversalServerRequest, limit: BodyLimit, enveloped: boolean, deps: HandlerDeps, keep?: number, hold?: BodyHold): Promise<Uint8Array | undefined> {
  const declared = Number(request.header.get("content-length") ?? Number.NaN);
  if (declared > limit.bytes) throw await payloadTooLarge(deps, limit);
  const source = (request.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  const envelope = enveloped ? new EnvelopePeek() : undefined;
  // A large body whose length is known (Content-Length, or the envelope's prefix once it has
  // come) is written into one buffer as it arrives, reserved and counted whole: body-buffer.ts.
  // Only a live key's body is held at all (`keep` undefined): no buffer is reserved for another's.
  const body = new BodyBuffer(hold);
  if (keep === undefined && !enveloped && declared >= 0) {
    const taken = body.expect(declared);
    if (taken !== "taken") throw await signedError(deps, heldBodiesRefusal(taken));
  }
  let size = 0;
  for (let step = await source.next(); !step.done; step = await source.next()) {
    size += step.value.byteLength;
    const announced = envelope?.push(step.value);
    if (size > limit.bytes || (announced !== undefined && announced > limit.bytes)) throw await payloadTooLarge(deps, limit);
    if (keep !== undefined && size > keep) continue;
    const reserved = keep === undefined && announced !== undefined ? body.expect(announced) : "taken";
    const taken = reserved === "taken" ? body.push(step.value) : reserved;
    if (taken !== "taken") throw await signedError(deps, heldBodiesRefusal(taken));
  }
  if (keep !== undefined && size > keep) return undefined;
  return body.bytes();
}

/** The body as Connect reads it, refused once it passes `limit` (Connect then reads and decodes it). */
function limitBody(body: AsyncIterable<Uint8Array>, header: Headers, limit: BodyLimit, deps: HandlerDeps): AsyncIterable<Uint8Array> {
  const declared = Number(header.get("content-length") ?? Number.NaN);
  const enveloped = /^application\/grpc/i.test(header.get("content-type") ?? "");
  return {
    [Symbol.asyncIterator]() {
      const source = body[Symbol.asyncIterator]();
      const envelope = enveloped ? new EnvelopePeek() : undefined;
      let size = 0;
      return {
        async next() {
          if (declared > limit.bytes) throw await payloadTooLarge(deps, limit);
          const step = await source.next();
          if (!step.done) {
            size += step.value.byteLength;
            // gRPC and gRPC-Web announce the message length up front, and Connect checks that
            // announcement against readMaxBytes as soon as it arrives: answer it first.
            const announced = envelope?.push(step.value);
            if (size > limit.bytes || (announced !== undefined && announced > limit.bytes)) throw await payloadTooLarge(deps, limit);
          }
          return step;
        },
      };
    },
  };
}

function badTimeout(deps: HandlerDeps, timeout: DeadlineHeader): Promise<ConnectError> {
  const shown = timeout.value.length > 40 ? `${timeout.value.slice(0, 40)}…` : timeout.value;
  return signedError(deps, new ApiError("invalid_request", `The ${timeout.name} header "${shown}" is malformed: it takes ${expectedTimeoutSyntax(timeout)}.`));
}

/**
 * Names what it does inflate, as gRPC's compression spec and Connect's own refusal do
 * (grpc-accept-encoding; Accept-Encoding for Connect's unary body), so a client can fall back.
 */
/** "gzip, br or deflate": the codings compressions.ts lists, as the refusal names them. */
const ACCEPTED_CODINGS = `${SUPPORTED_ENCODINGS.slice(0, -1).join(", ")} or ${SUPPORTED_ENCODINGS.at(-1)}`;

function unsupportedEncoding(deps: HandlerDeps, encoding: string, format: BodyFormat): Promise<ConnectError> {
  const shown = encoding.length > 40 ? `${encoding.slice(0, 40)}…` : encoding;
  const accepted = { [format.enveloped ? "grpc-accept-encoding" : "accept-encoding"]: SUPPORTED_ENCODINGS.join(",") };
  return signedError(deps, new ApiError("unsupported_encoding", `The message is compressed with "${shown}", which this service does not inflate: send it uncompressed, or with ${ACCEPTED_CODINGS}.`, { headers: accepted }));
}

function payloadTooLarge(deps: HandlerDeps, limit: BodyLimit): Promise<ConnectError> {
  return signedError(deps, new ApiError("payload_too_large", `The request is larger than ${limit.bytes} bytes${limit.why}.`));
}

function inflatesTooFar(deps: HandlerDeps, cap: number): Promise<ConnectError> {
  return signedError(deps, new ApiError("payload_too_large", `The request inflates to more than ${cap} bytes, over ${MAX_INFLATION_RATIO} times its compressed size, which no real request does.`));
}

/** Protobuf allows fields a schema does not know, but no client of this one sends thousands (each costs decoding time). */
function tooManyUnknownFields(deps: HandlerDeps, method: DescMethod, count: number): Promise<ConnectError> {
  return signedError(deps, new ApiError("invalid_request", `The request holds ${count} fields ${method.input.typeName} does not have; at most ${MAX_UNKNOWN_FIELDS} are read.`));
}

/** The refusal of a body that does not decode: `explained` when given (Moderate's JSON, in /v1/moderate's words), else the decoder's reason. */
function undecodable(deps: HandlerDeps, method: DescMethod, reason: string, explained?: string | undefined): Promise<ConnectError> {
  if (explained !== undefined) return signedError(deps, new ApiError("invalid_request", explained));
  const detail = reason.length > 200 ? `${reason.slice(0, 200)}…` : reason;
  return signedError(deps, new ApiError("invalid_request", `The request body is not a valid ${method.input.typeName} message: ${detail}.`));
}

/** The API error as Connect sends it, signed as the signing interceptor signs errors (bound to no request). */
function signedError(deps: HandlerDeps, apiError: ApiError): Promise<ConnectError> {
  return signConnectError(deps.signer, toConnectError(apiError), { requestBytes: new Uint8Array(), nowMs: deps.now(), scope: { route: deps.route } });
}

/** Reads the 5-byte envelope prefix (flags, big-endian length) of a gRPC / gRPC-Web body. */
class EnvelopePeek {
  private readonly prefix = new Uint8Array(5);
  private filled = 0;

  /** The announced size of envelope plus message, once the prefix is complete (then always undefined). */
  push(chunk: Uint8Array): number | undefined {
    if (this.filled >= 5) return undefined;
    const take = Math.min(5 - this.filled, chunk.byteLength);
    this.prefix.set(chunk.subarray(0, take), this.filled);
    this.filled += take;
    if (this.filled < 5) return undefined;
    return 5 + new DataView(this.prefix.buffer).getUint32(1, false);
  }
}

/** A body of one chunk, made when Connect first asks for it. */
function once(make: () => Promise<Uint8Array>): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      let given = false;
      return {
        async next() {
          if (given) return { done: true, value: undefined };
          given = true;
          return { done: false, value: await make() };
        },
      };
    },
  };
}

/** A body that fails with `error` when Connect first reads it, so Connect answers that error. */
/**
 * The body, with the API code of a refusal thrown while reading it noted on the request's
 * observation: such a refusal is answered by Connect itself, before the interceptor chain that
 * notes codes, and gRPC answers errors with HTTP 200, so the request was logged and counted as a
 * success with no code.
 */
function notingRefusal(body: AsyncIterable<Uint8Array>, request: UniversalServerRequest): AsyncIterable<Uint8Array> {
  const observation = request.contextValues?.get(observationKey);
  if (!observation) return body;
  return {
    [Symbol.asyncIterator]() {
      const source = body[Symbol.asyncIterator]();
      const iterator: AsyncIterator<Uint8Array> = {
        async next() {
          try {
            return await source.next();
          } catch (error) {
            observation.errorCode ??= (error as ConnectError).metadata?.get(ERROR_CODE_HEADER) ?? undefined;
            throw error;
          }
        },
      };
      // Connect may stop reading early: the source is told, as it was before this wrapper.
      if (source.return) iterator.return = (value?: unknown) => source.return!(value);
      return iterator;
    },
  };
}

function failing(error: () => Promise<ConnectError>): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      return {
        async next(): Promise<IteratorResult<Uint8Array>> {
          throw await error();
        },
      };
    },
  };
}

function without(header: Headers, name: string): Headers {
  if (!header.has(name)) return header;
  const copy = new Headers(header);
  copy.delete(name);
  return copy;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}
