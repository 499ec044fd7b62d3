import { create } from "@bufbuild/protobuf";
import { createApiKeyCheck } from "../../interceptors/auth.js";
import { incomingHeaderReader } from "../plain-headers.js";
import { createContextValues, type Interceptor } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import { ModerateRequestSchema, ModerationService } from "../../../gen/moderation/v1/moderation_pb.js";
import type { AppContext } from "../../app/app-context.js";
import { ApiError } from "../../errors/api-error.js";
import { transportKey } from "../../interceptors/context-keys.js";
import { MAX_REQUEST_BYTES } from "../../base/limits.js";
import { createModerationServiceImpl } from "../../rpc/moderation-service.js";
import { createChainInvoker } from "../invoke-chain.js";
import { declaredLength, unsupportedContentType } from "../json-request.js";
import { CallerHungUpError, readBody } from "../read-body.js";
import { sendSignedJson, sendSignedMethodNotAllowed } from "../send-json.js";
import { openAiError } from "./openai-error.js";
import { noteErrorCode } from "../../observability/request-observation.js";
import { parseOpenAiModerationJson, type OpenAiModerationRequest } from "./openai-request.js";
import { toOpenAiModeration } from "./openai-response.js";

const OPENAI_MODERATIONS_PATH = "/v1/moderations";

/**
 * POST /v1/moderations: OpenAI's moderation endpoint, so its SDKs work by changing the base URL.
 * Not a second implementation: the body is translated into a ModerateRequest and runs the same
 * interceptor chain (auth, rate limit, metering) and the same Moderate method as every other
 * route; the answer message is translated back into OpenAI's shape and signed over the bytes
 * sent, like /v1/moderate's. Errors keep the service's stable codes, in OpenAI's error shape.
 */
export function registerOpenAiModerationsRoute(app: FastifyInstance, ctx: AppContext, interceptors: Interceptor[]): void {
  const service = createModerationServiceImpl(ctx);
  const invoke = createChainInvoker({ service: ModerationService, method: ModerationService.method.moderate, impl: service.moderate!, interceptors });
  const hasLiveKey = createApiKeyCheck(ctx.accounts);
  app.register(async (scope) => {
    // Read the body ourselves: the chain must run (auth first) even when the body is unacceptable.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_req, payload, done) => done(null, payload));

    scope.post(OPENAI_MODERATIONS_PATH, async (request, reply) => {
      // No signatureBindingKey: this dialect is rendered here, from the answer message, so a
      // compute worker's rendering (signed ahead) would be wasted.
      const contextValues = createContextValues().set(transportKey, "json");
      let bodyError: ApiError | undefined;
      let parsed: OpenAiModerationRequest | undefined;
      let requestBody: Uint8Array | undefined;
      // The checks in their documented order: ../json-request.ts.
      const refusal = unsupportedContentType(request);
      try {
        const bytes = await readBody(request.raw, MAX_REQUEST_BYTES, declaredLength(request));
        requestBody = bytes;
        // Decode only for a live key: the chain refuses the others (no work before auth).
        if (!refusal && (await hasLiveKey(incomingHeaderReader(request.headers), contextValues))) parsed = parseOpenAiModerationJson(bytes);
      } catch (error) {
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
        return sendSigned(early.httpStatus, openAiError(early.httpStatus, early.code, early.message), []);
      }

      const input = parsed?.request ?? create(ModerateRequestSchema);
      const outcome = await invoke({
        request, reply, input, contextValues, deferredError: bodyError,
        // Images and guard-model calls take long enough to be worth cancelling when the caller leaves.
        abortable: ctx.textProvider !== undefined || input.input.some((item) => item.type === "image"),
      });
      if (outcome.ok) return sendSigned(200, toOpenAiModeration(outcome.output, parsed!.shape), outcome.headers);
      return sendSigned(outcome.status, openAiError(outcome.status, outcome.code, outcome.message), outcome.headers);
    });
  });
  app.route({
    method: ["GET", "PUT", "PATCH", "DELETE", "OPTIONS"],
    url: OPENAI_MODERATIONS_PATH,
    handler: (req, reply) => {
      noteErrorCode(req, "method_not_allowed");
      const body = openAiError(405, "method_not_allowed", `Use POST for ${OPENAI_MODERATIONS_PATH}.`);
      return sendSignedMethodNotAllowed(reply, { signer: ctx.signingKeys.signer, nowMs: ctx.clock() }, body);
    },
  });
}
