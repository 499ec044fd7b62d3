import { create } from "@bufbuild/protobuf";
import { createContextValues, type Interceptor } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import { ModerateRequestSchema, ModerationService, type ModerateRequest } from "../../gen/moderation/v1/moderation_pb.js";
import type { AppContext } from "../app/app-context.js";
import { ApiError } from "../errors/api-error.js";
import { createApiKeyCheck } from "../interceptors/auth.js";
import { signatureBindingKey, transportKey } from "../interceptors/context-keys.js";
import { MAX_REQUEST_BYTES } from "../base/limits.js";
import { createModerationServiceImpl } from "../rpc/moderation-service.js";
import { parseModerateJson } from "./json-body.js";
import { incomingHeaderReader } from "./plain-headers.js";
import { createChainInvoker } from "./invoke-chain.js";
import { declaredLength, unsupportedContentType } from "./json-request.js";
import { CallerHungUpError, readBody } from "./read-body.js";
import { moderateAnswerJson } from "../moderation/moderate-answer-json.js";
import { signedJsonFor } from "../signing/signed-ahead.js";
import { sendJsonSignedAhead, sendSignedJson, sendSignedMethodNotAllowed } from "./send-json.js";
import { noteErrorCode } from "../observability/request-observation.js";

const method = ModerationService.method.moderate;

/**
 * POST /v1/moderate: the spec's plain JSON API. It is not a second implementation: the
 * request goes through the same interceptor chain (auth, rate limit, signing, metering) and
 * the same service method as Connect and gRPC. Problems with the body itself (type, size,
 * JSON) are raised inside the chain, so they are authenticated and signed like any answer,
 * and the body is parsed only once the API key is known to be live.
 */
export function registerJsonRoute(app: FastifyInstance, ctx: AppContext, interceptors: Interceptor[]): void {
  const service = createModerationServiceImpl(ctx);
  const invoke = createChainInvoker({ service: ModerationService, method, impl: service.moderate!, interceptors });
  const hasLiveKey = createApiKeyCheck(ctx.accounts);
  app.register(async (scope) => {
    // Read the body ourselves: the chain must run even when the body is unacceptable.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_req, payload, done) => done(null, payload));

    scope.post("/v1/moderate", async (request, reply) => {
      const contextValues = createContextValues().set(transportKey, "json");
      let bodyError: ApiError | undefined;
      let input: ModerateRequest | undefined;
      let requestBody: Uint8Array | undefined;
      // The checks in their documented order: json-request.ts.
      const refusal = unsupportedContentType(request);
      try {
        // Read first (within the limit) so that every answer, a 415 or a 401 included, is signed
        // over the caller's bytes; decode only for a live key: the chain refuses the others.
        const bytes = await readBody(request.raw, MAX_REQUEST_BYTES, declaredLength(request));
        requestBody = bytes;
        contextValues.set(signatureBindingKey, { form: "json", requestBody: bytes });
        const live = refusal ? false : hasLiveKey(incomingHeaderReader(request.headers), contextValues);
        // A key the caller cache knows answers at once: no promise turn on the hot path.
        if (live === true || (live !== false && (await live))) input = parseModerateJson(bytes);
      } catch (error) {
        // Nobody is left to answer (and it is not the server's error to log).
        if (error instanceof CallerHungUpError) return reply.hijack();
        if (!(error instanceof ApiError)) throw error;
        bodyError = error;
      }

      const sendSigned = (status: number, body: unknown, headerSets: Headers[]) =>
        sendSignedJson(reply, { signer: ctx.signingKeys.signer, nowMs: ctx.clock(), requestBody }, status, body, headerSets);

      // Steps 1 and 2 (Content-Type, size) answer before the key, outside the chain, as the RPC
      // routes' refusals and body guard do: they say only what the route accepts.
      const early = refusal ?? (bodyError?.code === "payload_too_large" ? bodyError : undefined);
      if (early) {
        noteErrorCode(request, early.code);
        // A body we stopped reading cannot be followed by another request on this connection.
        if (bodyError?.code === "payload_too_large" && request.raw.httpVersionMajor === 1) reply.header("connection", "close");
        return sendSigned(early.httpStatus, { error: { code: early.code, message: early.message } }, []);
      }

      // A body that could not be read or parsed leaves an empty request: bodyError is raised instead.
      input ??= create(ModerateRequestSchema);
      const outcome = await invoke({
        request, reply, input, contextValues, deferredError: bodyError,
        // Only images (decoding, the vision provider) take long enough to be worth cancelling.
        // (And a text guard-model provider, when one is configured: a caller who left should not hold its slots.)
        abortable: ctx.textProvider !== undefined || input.input.some((item) => item.type === "image"),
      });
      if (outcome.ok) {
        const signedAhead = signedJsonFor(outcome.output);
        if (signedAhead) return sendJsonSignedAhead(reply, 200, signedAhead, outcome.headers);
        return sendSigned(200, moderateAnswerJson(outcome.output), outcome.headers);
      }
      return sendSigned(outcome.status, { error: { code: outcome.code, message: outcome.message } }, outcome.headers);
    });
  });
  app.route({
    method: ["GET", "PUT", "PATCH", "DELETE", "OPTIONS"],
    url: "/v1/moderate",
    handler: (req, reply) => {
      noteErrorCode(req, "method_not_allowed");
      const body = { error: { code: "method_not_allowed", message: "Use POST for /v1/moderate." } };
      return sendSignedMethodNotAllowed(reply, { signer: ctx.signingKeys.signer, nowMs: ctx.clock() }, body);
    },
  });
}
