import type { ConnectRouter } from "@connectrpc/connect";
import type { FastifyInstance, FastifyPluginCallback, FastifyPluginOptions } from "fastify";
import { createAsyncIterable, type UniversalHandler, type UniversalServerRequest, type UniversalServerResponse } from "@connectrpc/connect/protocol";
import { errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { charsetOf, isUtf8OrUnset, mediaTypeOf } from "../base/media-type.js";
import { ApiError, ERROR_CODES, toConnectError } from "../errors/api-error.js";
import { signConnectError } from "../signing/sign-outcome.js";
import { withCanonicalContentType } from "./decode-check.js";
import type { Signer } from "../signing/signer.js";
import { refuseUnparseableContentTypes, type RpcPluginOptions } from "./unparseable-content-type.js";

interface RefusalDeps {
  signer: Signer;
  now: () => number;
}

/**
 * Connect refuses a request none of its protocols accepts (a Content-Type that is not Connect,
 * gRPC or gRPC-Web; an HTTP method the RPC does not allow) with a bare 415 or 405: no body, no
 * error code, no signature. This answers them first, like every other RPC error: Connect's JSON
 * error body, x-error-code (unsupported_media_type, method_not_allowed) and a signature bound to
 * an empty request (none was read), with the HTTP status the error table gives the code.
 * Nothing is read or authenticated first: the refusal says only what the route accepts.
 */
export function refuseUnsupportedRequests(router: ConnectRouter, deps: RefusalDeps): void {
  router.handlers.forEach((handler, i) => {
    const refusing = (sent: UniversalServerRequest) => {
      // Every layer after this one (the body guard, Connect) reads the Content-Type as Connect compares it.
      const header = withCanonicalContentType(sent.header);
      const request = header === sent.header ? sent : { ...sent, header };
      const refusal = refusalFor(handler, request);
      return refusal ? answer(deps, refusal, handler.requestPath) : handler(request);
    };
    // Keep requestPath, service, method, protocol names: the fastify plugin routes by them.
    router.handlers[i] = Object.assign(refusing, handler);
  });
}

function refusalFor(handler: UniversalHandler, request: UniversalServerRequest): ApiError | undefined {
  if (!handler.allowedMethods.includes(request.method)) {
    return new ApiError("method_not_allowed", `Use ${handler.allowedMethods.join(" or ")} for ${handler.requestPath}.`, {
      headers: { allow: handler.allowedMethods.join(", ") },
    });
  }
  const contentType = request.header.get("content-type") ?? "";
  // A Connect GET carries its message in the query string and has no Content-Type.
  if (contentType === "" && request.method === "GET") return undefined;
  // gRPC-Web's text mode (base64) matches the handler's types, but Connect then refuses it itself,
  // with a bare 415: no code, no signature.
  if (/^application\/grpc-web-text/i.test(contentType)) return unsupportedType(contentType);
  if (handler.supportedContentType(contentType)) return undefined;
  // A type the route serves, refused for its charset alone (withCanonicalContentType took away any
  // parameter that says UTF-8): named as the JSON routes name it, not as a protocol it is not.
  const charset = charsetOf(contentType);
  if (!isUtf8OrUnset(charset) && handler.supportedContentType(mediaTypeOf(contentType))) return unsupportedCharset(charset);
  return unsupportedType(contentType);
}

function unsupportedCharset(charset: string): ApiError {
  return new ApiError(
    "unsupported_media_type",
    `The RPC routes read UTF-8 only (got charset "${charset.slice(0, 40)}"): send the body as UTF-8, with charset=utf-8 or no charset in the Content-Type.`,
  );
}

function unsupportedType(contentType: string): ApiError {
  return new ApiError(
    "unsupported_media_type",
    `The Content-Type "${contentType.slice(0, 100)}" is not an RPC protocol this route serves: use application/json or application/proto (Connect), application/grpc or application/grpc-web (binary; not grpc-web-text).`,
  );
}

async function answer(deps: RefusalDeps, apiError: ApiError, route: string): Promise<UniversalServerResponse> {
  const error = await signConnectError(deps.signer, toConnectError(apiError), { requestBytes: new Uint8Array(), nowMs: deps.now(), scope: { route } });
  const header = new Headers(error.metadata);
  header.set("content-type", "application/json");
  return { status: ERROR_CODES[apiError.code].http, header, body: createAsyncIterable([errorToJsonBytes(error, undefined)]) };
}

/**
 * The RPC plugin in a scope of its own where every Content-Type is let through unparsed (the
 * plugin registers no-op parsers only for the RPC types), so that an unsupported one reaches
 * refuseUnsupportedRequests instead of fastify's bare 415; one fastify cannot parse at all is
 * handed there too (unparseable-content-type.ts). Other routes keep their parsers.
 */
export function acceptingAnyContentType<Options extends FastifyPluginOptions & RpcPluginOptions>(plugin: FastifyPluginCallback<Options>) {
  return async (scope: FastifyInstance, options: Options) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
    await scope.register(plugin as FastifyPluginCallback, refuseUnparseableContentTypes(scope, options));
  };
}
