import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import type { OutgoingHttpHeaders } from "node:http";
import type { ServerHttp2Stream } from "node:http2";
import type { FastifyReply, FastifyRequest } from "fastify";
import { mediaTypeOf } from "../base/media-type.js";
import { ApiError, toConnectError } from "../errors/api-error.js";
import { noteErrorCode, observeAs } from "../observability/request-observation.js";
import { encodeGrpcMessage } from "./grpc-message-encoding.js";
import { rpcProtocolOf } from "./rpc-protocol.js";
import { signConnectError } from "../signing/sign-outcome.js";
import type { Signer } from "../signing/signer.js";

/** gRPC or gRPC-Web, by the call's media type (application/grpc, application/grpc-web+proto, ...); undefined for anything else. */
export function grpcProtocolOf(request: FastifyRequest): "grpc" | "grpc-web" | undefined {
  const protocol = rpcProtocolOf(mediaTypeOf(request.headers["content-type"]));
  return protocol === "connect" ? undefined : protocol;
}

/**
 * A gRPC or gRPC-Web call to a method this server does not have. The JSON not-found answer
 * (HTTP 404) reaches a gRPC client only as "Received HTTP status code 404", with no error code
 * and no signature. This answers the way gRPC servers do: HTTP 200 with headers only (a
 * "trailers-only" response), grpc-status 12 UNIMPLEMENTED, x-error-code unknown_method, signed
 * like every RPC error and bound to an empty request (nothing was read). UNIMPLEMENTED is what
 * reflection clients look for to fall back from v1 to v1alpha.
 */
export async function answerUnknownGrpcMethod(
  request: FastifyRequest, reply: FastifyReply, protocol: "grpc" | "grpc-web", signing: { signer: Signer; nowMs: number },
): Promise<FastifyReply> {
  const path = request.url.split("?")[0]!;
  const apiError = new ApiError("unknown_method", `No RPC method ${path.slice(0, 200)} on this server.`);
  noteErrorCode(request, apiError.code);
  // Counted under its protocol, as a served method's call is (the route layer named none).
  observeAs(request, protocol);
  // No scope: no method was called (the path is the caller's, not a route of this server).
  const error = await signConnectError(signing.signer, toConnectError(apiError), { requestBytes: new Uint8Array(), nowMs: signing.nowMs, scope: undefined });
  const headers = setTrailerStatus(new Headers({ "content-type": `application/${protocol}+proto` }), error);
  // As the gRPC spec escapes it (grpc-message-encoding.ts): grpc-js would show "%2F" for "/".
  headers.set("grpc-message", encodeGrpcMessage(error.rawMessage));
  // The reply's own headers first (X-Request-Id, CORS), as every other answer has them.
  const head: OutgoingHttpHeaders = { ...(reply.getHeaders() as OutgoingHttpHeaders), ...Object.fromEntries(headers) };
  reply.hijack();
  const raw = reply.raw as typeof reply.raw & { stream?: ServerHttp2Stream };
  if (raw.stream) {
    // One HEADERS frame that ends the stream: gRPC clients read grpc-status from the headers
    // only then (writeHead and end() would send an empty DATA frame to end it).
    raw.stream.respond({ ":status": 200, ...head }, { endStream: true });
  } else {
    raw.writeHead(200, head);
    raw.end();
  }
  return reply;
}

