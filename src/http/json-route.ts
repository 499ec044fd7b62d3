import { create, toJson } from "@bufbuild/protobuf";
import { ConnectError, createContextValues, createHandlerContext, createMethodImplSpec, type Interceptor, type MethodImplSpec } from "@connectrpc/connect";
import { invokeUnaryImplementation } from "@connectrpc/connect/protocol";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ModerateRequestSchema, ModerateResponseSchema, ModerationService, type ModerateResponse } from "../../gen/moderation/v1/moderation_pb.js";
import type { AppContext } from "../app/app-context.js";
import { ApiError, ERROR_CODE_HEADER, ERROR_CODES, isErrorCode } from "../errors/api-error.js";
import { rawJsonBodyKey, transportKey } from "../interceptors/context-keys.js";
import { MAX_REQUEST_BYTES } from "../moderation/limits.js";
import { createModerationServiceImpl } from "../rpc/moderation-service.js";
import { parseModerateJson } from "./json-body.js";
import { readBody } from "./read-body.js";
import { sendJson } from "./send-json.js";
import { signHttpResponse } from "../signing/http-signature.js";
import { JSON_CONTENT_TYPE } from "../signing/json-body-signature.js";

const method = ModerationService.method.moderate;

/**
 * POST /v1/moderate: the spec's plain JSON API. It is not a second implementation: the
 * request goes through the same interceptor chain (auth, rate limit, signing, metering) and
 * the same service method as Connect and gRPC. Problems with the body itself (type, size,
 * JSON) are raised inside the chain, so they are authenticated and signed like any answer.
 */
export function registerJsonRoute(app: FastifyInstance, ctx: AppContext, interceptors: Interceptor[]): void {
  const service = createModerationServiceImpl(ctx);
  app.register(async (scope) => {
    // Read the body ourselves: the chain must run even when the body is unacceptable.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_req, payload, done) => done(null, payload));

    scope.post("/v1/moderate", async (request, reply) => {
      const contextValues = createContextValues().set(transportKey, "json");
      let bodyError: ApiError | undefined;
      let input = create(ModerateRequestSchema);
      try {
        // Read first (within the limit) so that even a 415 is signed over the caller's bytes.
        const bytes = await readBody(request.raw, MAX_REQUEST_BYTES, declaredLength(request));
        contextValues.set(rawJsonBodyKey, bytes);
        checkContentType(request);
        input = parseModerateJson(bytes);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        bodyError = error;
      }

      const spec = createMethodImplSpec(method, async (req, handlerContext) => {
        if (bodyError) throw bodyError;
        return service.moderate!(req, handlerContext);
      }) as Extract<MethodImplSpec, { kind: "unary" }>;
      const context = createHandlerContext({
        service: ModerationService,
        method,
        protocolName: "json",
        requestMethod: "POST",
        url: request.url,
        requestHeader: toHeaders(request),
        requestSignal: abortSignalFor(request),
        contextValues,
      });

      // Serialize once and sign exactly the bytes that go on the wire.
      const sendSigned = (status: number, body: unknown, headerSets: Headers[]) => {
        const bytes = Buffer.from(JSON.stringify(body));
        reply.headers(signHttpResponse(ctx.signingKeys.signer, {
          status,
          contentType: JSON_CONTENT_TYPE,
          body: bytes,
          // undefined: the body was refused unread (wrong type, too large); bind to "no body".
          requestBody: contextValues.get(rawJsonBodyKey) ?? new Uint8Array(),
          created: Math.floor(ctx.clock() / 1000),
        }));
        return sendJson(reply, status, bytes, headerSets);
      };

      try {
        const output = (await invokeUnaryImplementation(spec, context, input, interceptors)) as ModerateResponse;
        const body = toJson(ModerateResponseSchema, output, { useProtoFieldName: true, alwaysEmitImplicit: true });
        return sendSigned(200, body, [context.responseHeader, context.responseTrailer]);
      } catch (error) {
        const { status, code, message, headers } = describeError(error);
        // A body we stopped reading cannot be followed by another request on this connection.
        if (code === "payload_too_large" && request.raw.httpVersionMajor === 1) reply.header("connection", "close");
        return sendSigned(status, { error: { code, message } }, [context.responseHeader, headers]);
      }
    });
  });
}

function checkContentType(request: FastifyRequest): void {
  const type = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    throw new ApiError("unsupported_media_type", "The request body must be JSON, sent with Content-Type: application/json.");
  }
}

function declaredLength(request: FastifyRequest): number | undefined {
  const raw = request.headers["content-length"];
  return raw === undefined ? undefined : Number(raw);
}

function toHeaders(request: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.startsWith(":") || value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return headers;
}

function abortSignalFor(request: FastifyRequest): AbortSignal {
  const controller = new AbortController();
  request.raw.once("close", () => {
    if (!request.raw.complete) controller.abort();
  });
  return controller.signal;
}

/** The chain only lets ConnectErrors out (see error-mapping); anything else is a bug. */
function describeError(error: unknown): { status: number; code: string; message: string; headers: Headers } {
  if (error instanceof ConnectError) {
    const code = error.metadata.get(ERROR_CODE_HEADER);
    if (code && isErrorCode(code)) {
      return { status: ERROR_CODES[code].http, code, message: error.rawMessage, headers: error.metadata };
    }
  }
  return { status: 500, code: "internal_error", message: "The server failed to process the request.", headers: new Headers() };
}

export type { FastifyReply };
