import type { DescMessage } from "@bufbuild/protobuf";
import { ConnectError, type ConnectRouter } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerRequest } from "@connectrpc/connect/protocol";
import { ApiError, ERROR_CODE_HEADER, toConnectError } from "../errors/api-error.js";
import { signRpcOutcome } from "../signing/rpc-signature.js";
import type { Signer } from "../signing/signer.js";
import { undecodableReason } from "./decode-check.js";

export interface RequestBodyLimitDeps {
  limit: number;
  signer: Signer;
  now: () => number;
}

/**
 * Puts our own checks in front of every RPC handler the router has, before Connect reads the body:
 * - a byte limit below Connect's readMaxBytes. Connect refuses an oversized body before any
 *   interceptor runs, so its refusal had neither the payload_too_large code nor a signature;
 * - for unary methods, whether the body decodes as the method's input (decode-check.ts). Connect
 *   answered undecodable protobuf with INTERNAL and JSON of the wrong shape with a bare
 *   INVALID_ARGUMENT; ours is invalid_request.
 * Both answers carry the API's code and a signature like every other RPC error, bound to an empty
 * request (there is no decoded request to bind to), as the JSON route's 413 is.
 */
export function guardRpcRequestBodies(router: ConnectRouter, deps: RequestBodyLimitDeps): void {
  router.handlers.forEach((handler, i) => {
    router.handlers[i] = withBodyLimit(handler, deps);
  });
}

function withBodyLimit(handler: UniversalHandler, deps: RequestBodyLimitDeps): UniversalHandler {
  const schema = handler.method.methodKind === "unary" ? handler.method.input : undefined;
  const limited = (request: UniversalServerRequest) => handler({ ...request, body: limitBody(request, deps, schema) });
  // Keep requestPath, service, method, protocol names: the fastify plugin routes by them.
  return Object.assign(limited, handler);
}

/** `schema`: the unary method's input, whose decoding is checked once the whole body is in. */
function limitBody(request: UniversalServerRequest, deps: RequestBodyLimitDeps, schema: DescMessage | undefined): UniversalServerRequest["body"] {
  const body = request.body;
  if (!isAsyncIterable(body)) return body; // already parsed JSON: the framework read it within its own limit
  const declared = Number(request.header.get("content-length") ?? Number.NaN);
  const enveloped = /^application\/grpc/i.test(request.header.get("content-type") ?? "");
  return {
    [Symbol.asyncIterator]() {
      // Iterated by hand, not with for-await: returning early would destroy the request
      // stream, and with it the connection, before the error can be sent.
      const source = body[Symbol.asyncIterator]();
      const envelope = new EnvelopePeek();
      const chunks: Uint8Array[] = [];
      let size = 0;
      let announced: number | undefined;
      let checked = false;
      // Connect parses an enveloped message as soon as its last byte arrives, an unenveloped body
      // once it has all of it: check at the same moment, before Connect sees the bytes.
      const check = async () => {
        checked = true;
        const reason = await undecodableReason(schema!, request.header, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), deps.limit);
        chunks.length = 0;
        if (reason !== undefined) throw await undecodable(deps, schema!, reason);
      };
      return {
        async next() {
          if (declared > deps.limit) throw await payloadTooLarge(deps);
          const step = await source.next();
          if (!step.done) {
            size += step.value.byteLength;
            // gRPC and gRPC-Web announce the message length up front, and Connect checks that
            // announcement against readMaxBytes as soon as it arrives: answer it first.
            announced ??= enveloped ? envelope.push(step.value) : undefined;
            if (size > deps.limit || (announced !== undefined && announced > deps.limit)) throw await payloadTooLarge(deps);
            if (schema && !checked) {
              chunks.push(step.value);
              if (announced !== undefined && size >= announced) await check();
            }
          } else if (schema && !checked) {
            await check();
          }
          return step;
        },
      };
    },
  };
}

function payloadTooLarge(deps: RequestBodyLimitDeps): Promise<ConnectError> {
  return signedError(deps, new ApiError("payload_too_large", `The request is larger than ${deps.limit} bytes, more than ten maximal items need.`));
}

function undecodable(deps: RequestBodyLimitDeps, schema: DescMessage, reason: string): Promise<ConnectError> {
  const detail = reason.length > 200 ? `${reason.slice(0, 200)}…` : reason;
  return signedError(deps, new ApiError("invalid_request", `The request body is not a valid ${schema.typeName} message: ${detail}.`));
}

/** The API error as Connect sends it, signed as the signing interceptor signs errors. */
async function signedError(deps: RequestBodyLimitDeps, apiError: ApiError): Promise<ConnectError> {
  const error = toConnectError(apiError);
  const metadata = await signRpcOutcome(deps.signer, {
    requestBytes: new Uint8Array(),
    outcome: { ok: false, code: error.code, message: error.rawMessage, errorCode: error.metadata.get(ERROR_CODE_HEADER)! },
    created: Math.floor(deps.now() / 1000),
  });
  for (const [name, value] of Object.entries(metadata)) error.metadata.set(name, value);
  return error;
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

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}
