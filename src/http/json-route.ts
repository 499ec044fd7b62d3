import { create } from "@bufbuild/protobuf";
import { createContextValues, type Interceptor } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import { ModerateRequestSchema, ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import { rateLimitDepsOf } from "../interceptors/chain.js";
import { createRateLimitAhead } from "../interceptors/rate-limit-ahead.js";
import type { AppContext } from "../app/app-context.js";
import { createApiKeyCheck } from "../interceptors/auth.js";
import { signatureBindingKey, signatureScopeOf, transportKey } from "../interceptors/context-keys.js";
import { createModerationServiceImpl } from "../rpc/moderation-service.js";
import { moderateRequestFromJson } from "./json-body.js";
import { parseWith } from "./json-off-thread.js";
import { createChainInvoker } from "./invoke-chain.js";
import { observeAsJson, passBodiesThrough, takeJsonRequest } from "./json-request.js";
import { moderateAnswerJsonText } from "../moderation/moderate-answer-json.js";
import { signedJsonFor } from "../signing/signed-ahead.js";
import { refuseUnreadableContentTypes } from "./unreadable-content-type.js";
import { registerMethodNotAllowed, sendJsonSignedAhead, sendSignedJson, sendSignedJsonText, signingNow } from "./send-json.js";

const method = ModerationService.method.moderate;
const ROUTE = "/v1/moderate";

/**
 * POST /v1/moderate: the spec's plain JSON API. It is not a second implementation: the
 * request goes through the same interceptor chain (auth, rate limit, signing, metering) and
 * the same service method as Connect and gRPC. Problems with the body itself (type, size,
 * JSON) are raised inside the chain, so they are authenticated and signed like any answer,
 * and the body is parsed only once the API key is known to be live and its account within its
 * rate limit.
 */
export function registerJsonRoute(app: FastifyInstance, ctx: AppContext, interceptors: Interceptor[], stopCalls?: AbortSignal): void {
  const service = createModerationServiceImpl(ctx);
  const invoke = createChainInvoker({ service: ModerationService, method, impl: service.moderate!, interceptors, stopCalls });
  const hasLiveKey = createApiKeyCheck(ctx.accounts);
  const chargeRateLimit = createRateLimitAhead(rateLimitDepsOf(ctx)).charge;
  // The body's JSON (parsed in a compute worker when large: a promise then), checked into a ModerateRequest.
  const parseRequestBody = parseWith(ctx.readJsonBody, moderateRequestFromJson);
  app.register(async (scope) => {
    // Read the body ourselves: the chain must run even when the body is unacceptable.
    passBodiesThrough(scope);
    refuseUnreadableContentTypes(scope, ROUTE, (status, code, message) => ({ status, body: { error: { code, message } } }), () => signingNow(ctx));

    scope.post(ROUTE, { onRequest: observeAsJson }, async (request, reply) => {
      const contextValues = createContextValues().set(transportKey, "json");
      // Steps 1 to 5 in their documented order (json-request.ts); parse only for a live key within its rate limit.
      const intake = await takeJsonRequest(request, reply, { hasLiveKey, chargeRateLimit, contextValues, heldBodies: ctx.heldBodies, stop: stopCalls }, parseRequestBody);
      if (!intake) return reply.hijack();
      const { requestBody, bodyError } = intake;
      if (requestBody) contextValues.set(signatureBindingKey, { form: "json", requestBody, route: ROUTE });
      // Read when the answer is signed: the account is there once the chain found the key live.
      const signing = () => ({ ...signingNow(ctx), requestBody, scope: signatureScopeOf(ROUTE, contextValues) });

      const sendSigned = (status: number, body: unknown, headerSets: Headers[]) => sendSignedJson(reply, signing(), status, body, headerSets);
      if (intake.early) return sendSigned(intake.early.httpStatus, { error: { code: intake.early.code, message: intake.early.message } }, [new Headers(intake.early.headers)]);

      // A body that could not be read or parsed leaves an empty request: bodyError is raised instead.
      const input = intake.parsed ?? create(ModerateRequestSchema);
      const outcome = await invoke({
        request, reply, input, contextValues, deferredError: bodyError,
        // Only images (decoding, the vision provider) take long enough to be worth cancelling.
        // (And a text guard-model provider, when one is configured: a caller who left should not hold its slots.)
        abortable: ctx.textProvider !== undefined || input.input.some((item) => item.type === "image"),
      });
      if (outcome.ok) {
        const signedAhead = signedJsonFor(outcome.output);
        if (signedAhead) return sendJsonSignedAhead(reply, 200, signedAhead, outcome.headers);
        return sendSignedJsonText(reply, signing(), 200, moderateAnswerJsonText(outcome.output), outcome.headers);
      }
      return sendSigned(outcome.status, { error: { code: outcome.code, message: outcome.message } }, outcome.headers);
    });
  });
  registerMethodNotAllowed(app, ROUTE, "POST", () => signingNow(ctx), { error: { code: "method_not_allowed", message: "Use POST for /v1/moderate." } });
}
