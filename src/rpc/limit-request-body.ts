import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerRequest } from "@connectrpc/connect/protocol";
import { ApiError, ERROR_CODE_HEADER, toConnectError } from "../errors/api-error.js";
import { signRpcOutcome } from "../signing/rpc-signature.js";
import type { Signer } from "../signing/signer.js";

export interface RequestBodyLimitDeps {
  limit: number;
  signer: Signer;
  now: () => number;
}

/**
 * Puts our own byte limit in front of every RPC handler the router has, below Connect's
 * readMaxBytes. Connect refuses an oversized body before any interceptor runs, so its
 * refusal had neither the payload_too_large code nor a signature; ours has both, like every
 * other RPC error. The signature is bound to an empty request (the body was never read), as
 * the JSON route's 413 is.
 */
export function limitRpcRequestBodies(router: ConnectRouter, deps: RequestBodyLimitDeps): void {
  router.handlers.forEach((handler, i) => {
    router.handlers[i] = withBodyLimit(handler, deps);
  });
}

function withBodyLimit(handler: UniversalHandler, deps: RequestBodyLimitDeps): UniversalHandler {
  const limited = (request: UniversalServerRequest) => handler({ ...request, body: limitBody(request, deps) });
  // Keep requestPath, service, method, protocol names: the fastify plugin routes by them.
  return Object.assign(limited, handler);
}

function limitBody(request: UniversalServerRequest, deps: RequestBodyLimitDeps): UniversalServerRequest["body"] {
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
      let size = 0;
      return {
        async next() {
          if (declared > deps.limit) throw await payloadTooLarge(deps);
          const step = await source.next();
          if (!step.done) {
            size += step.value.byteLength;
            // gRPC and gRPC-Web announce the message length up front, and Connect checks that
            // announcement against readMaxBytes as soon as it arrives: answer it first.
            const announced = enveloped ? envelope.push(step.value) : undefined;
            if (size > deps.limit || (announced !== undefined && announced > deps.limit)) throw await payloadTooLarge(deps);
          }
          return step;
        },
      };
    },
  };
}

async function payloadTooLarge(deps: RequestBodyLimitDeps): Promise<ConnectError> {
  const error = toConnectError(new ApiError("payload_too_large", `The request is larger than ${deps.limit} bytes, more than ten maximal items need.`));
  const metadata = await signRpcOutcome(deps.signer, {
    requestBytes: new Uint8Array(),
    outcome: { ok: false, code: Code.ResourceExhausted, message: error.rawMessage, errorCode: error.metadata.get(ERROR_CODE_HEADER)! },
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
