import { create } from "@bufbuild/protobuf";
import { createApiKeyCheck } from "../../interceptors/auth.js";
import { createContextValues, type Interceptor } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import { ModerateRequestSchema, ModerationService } from "../../../gen/moderation/v1/moderation_pb.js";
import { rateLimitDepsOf } from "../../interceptors/chain.js";
import { createRateLimitAhead } from "../../interceptors/rate-limit-ahead.js";
import type { AppContext } from "../../app/app-context.js";
import { signatureScopeOf, transportKey } from "../../interceptors/context-keys.js";
import { createModerationServiceImpl } from "../../rpc/moderation-service.js";
import { createChainInvoker } from "../invoke-chain.js";
import { observeAsJson, passBodiesThrough, takeJsonRequest } from "../json-request.js";
import { registerMethodNotAllowed, sendSignedJson, signingNow } from "../send-json.js";
import { refuseUnreadableContentTypes } from "../unreadable-content-type.js";
import { openAiError, openAiStatusOf } from "./openai-error.js";
import { inCallersWords, openAiModerationFromJson } from "./openai-request.js";
import { parseWith } from "../json-off-thread.js";
import { toOpenAiModeration } from "./openai-response.js";
import { withOpenAiRateLimitNames } from "./openai-rate-limit-headers.js";

const OPENAI_MODERATIONS_PATH = "/v1/moderations";

/**
 * POST /v1/moderations: OpenAI's moderation endpoint, so its SDKs work by changing the base URL.
 * Not a second implementation: the body is translated into a ModerateRequest and runs the same
 * interceptor chain (auth, rate limit, metering) and the same Moderate method as every other
 * route; the answer message is translated back into OpenAI's shape and signed over the bytes
 * sent, like /v1/moderate's. Errors keep the service's stable codes, in OpenAI's error shape.
 */
export function registerOpenAiModerationsRoute(app: FastifyInstance, ctx: AppContext, interceptors: Interceptor[], stopCalls?: AbortSignal): void {
  const service = createModerationServiceImpl(ctx);
  const invoke = createChainInvoker({ service: ModerationService, method: ModerationService.method.moderate, impl: service.moderate!, interceptors, stopCalls });
  const hasLiveKey = createApiKeyCheck(ctx.accounts);
  const chargeRateLimit = createRateLimitAhead(rateLimitDepsOf(ctx)).charge;
  const parseOpenAiModerationJson = parseWith(ctx.readJsonBody, openAiModerationFromJson);
  app.register(async (scope) => {
    // Read the body ourselves: the chain must run (auth first) even when the body is unacceptable.
    passBodiesThrough(scope);
    refuseUnreadableContentTypes(scope, OPENAI_MODERATIONS_PATH, (status, code, message) => {
      const openAiStatus = openAiStatusOf(status, code);
      return { status: openAiStatus, body: openAiError(openAiStatus, code, message) };
    }, () => signingNow(ctx));

    scope.post(OPENAI_MODERATIONS_PATH, { onRequest: observeAsJson }, async (request, reply) => {
      // No signatureBindingKey: this dialect is rendered here, from the answer message, so a
      // compute worker's rendering (signed ahead) would be wasted.
      const contextValues = createContextValues().set(transportKey, "json");
      // Steps 1 to 5 in their documented order (../json-request.ts); parse only for a live key within its rate limit.
      const intake = await takeJsonRequest(request, reply, { hasLiveKey, chargeRateLimit, contextValues, heldBodies: ctx.heldBodies, stop: stopCalls }, parseOpenAiModerationJson);
      if (!intake) return reply.hijack();
      const { requestBody, bodyError, parsed } = intake;

      const sendSigned = (status: number, body: unknown, headerSets: Headers[]) =>
        sendSignedJson(reply, { ...signingNow(ctx), requestBody, scope: signatureScopeOf(OPENAI_MODERATIONS_PATH, contextValues) }, status, body, withOpenAiRateLimitNames(headerSets));
      if (intake.early) {
        const status = openAiStatusOf(intake.early.httpStatus, intake.early.code);
        return sendSigned(status, openAiError(status, intake.early.code, intake.early.message), [new Headers(intake.early.headers)]);
      }

      const input = parsed?.request ?? create(ModerateRequestSchema);
      const outcome = await invoke({
        request, reply, input, contextValues, deferredError: bodyError,
        // Images and guard-model calls take long enough to be worth cancelling when the caller leaves.
        abortable: ctx.textProvider !== undefined || input.input.some((item) => item.type === "image"),
      });
      if (outcome.ok) return sendSigned(200, toOpenAiModeration(outcome.output, parsed!.shape), outcome.headers);
      const status = openAiStatusOf(outcome.status, outcome.code);
      return sendSigned(status, openAiError(status, outcome.code, inCallersWords(outcome.message, parsed?.shape)), outcome.headers);
    });
  });
  const notAllowed = openAiError(405, "method_not_allowed", `Use POST for ${OPENAI_MODERATIONS_PATH}.`);
  registerMethodNotAllowed(app, OPENAI_MODERATIONS_PATH, "POST", () => signingNow(ctx), notAllowed);
}
