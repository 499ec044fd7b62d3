import type { DescMethod, DescService } from "@bufbuild/protobuf";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { createApiKeyCheck, isPublicMethod } from "../interceptors/auth.js";
import { createDecodedRequestInterceptor } from "../interceptors/decoded-request.js";
import { AccountService } from "../../gen/moderation/v1/account_pb.js";
import { ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import { Health } from "../../gen/grpc/health/v1/health_pb.js";
import { ServerReflection as ReflectionV1 } from "../../gen/grpc/reflection/v1/reflection_pb.js";
import { ServerReflection as ReflectionV1alpha } from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";
import type { AppContext } from "../app/app-context.js";
import { createHealthServiceImpl } from "./health-service.js";
import { createModerationServiceImpl } from "./moderation-service.js";
import { registerReflection } from "./reflection-service.js";
import { createAccountServiceImpl } from "./account-service.js";
import { PolicyService } from "../../gen/moderation/v1/policy_pb.js";
import { createPolicyServiceImpl } from "./policy-service.js";
import { bodyLimitOf } from "./body-limits.js";
import { guardRpcRequestBodies, PUBLIC_BODY_LIMIT } from "./guard-request-body.js";
import { refuseUnsupportedRequests } from "./refuse-unsupported-requests.js";
import { createSigningInterceptor } from "../interceptors/signing.js";
import { rateLimitDepsOf } from "../interceptors/chain.js";
import { createRateLimitAhead } from "../interceptors/rate-limit-ahead.js";
import { createStreamReadErrorsInterceptor } from "./stream-read-errors.js";

/** The services behind the interceptor chain (auth, limits, signing); health and reflection are public. */
const API_SERVICES: readonly DescService[] = [ModerationService, AccountService, PolicyService];

/**
 * The services whose unary request bodies the body guard decodes (guard-request-body.ts): each
 * runs the decoded-request interceptor first, which hands the guard's message to the handler.
 */
const GUARD_DECODED_SERVICES: readonly DescService[] = [...API_SERVICES, Health];

/**
 * Every RPC the server answers, with everything a route needs, registered the same way by the
 * server (src/edge/server.ts) and by in-process tests (`createRouterTransport(createRoutes(…))`).
 * The API services run the full interceptor chain; health and reflection are public. In front
 * of every handler, outermost first (docs/architecture.md, "Auth and body checks"):
 *   1. refusals of what no handler serves (HTTP method, Content-Type), before anything is read;
 *   2. the body guard: malformed deadline headers, the size limit, then the key, then decoding.
 */
export function createRoutes(ctx: AppContext, interceptors: Interceptor[], isServing: () => boolean, stopping?: AbortSignal) {
  const bodyGuard = {
    limitOf: bodyLimitOf,
    signer: ctx.signingKeys.signer,
    now: ctx.clock,
    decodedServices: GUARD_DECODED_SERVICES,
    needsApiKey: (method: DescMethod) => API_SERVICES.includes(method.parent) && !isPublicMethod(method),
    hasLiveKey: createApiKeyCheck(ctx.accounts),
    isOverRateLimit: createRateLimitAhead(rateLimitDepsOf(ctx)).isOverLimit,
    heldBodies: ctx.heldBodies,
    // A misspelt policy field ignored ("blocklist") saved an empty policy over the account's.
    strictJson: (method: DescMethod) => method.parent === PolicyService,
  };
  const refusals = { signer: ctx.signingKeys.signer, now: ctx.clock };
  return (router: ConnectRouter) => {
    router.service(ModerationService, createModerationServiceImpl(ctx), { interceptors });
    router.service(AccountService, createAccountServiceImpl(ctx), { interceptors });
    router.service(PolicyService, createPolicyServiceImpl(ctx), { interceptors });
    const reflection = ctx.config.grpcReflection === "on";
    const served = [ModerationService, AccountService, PolicyService, Health, ...(reflection ? [ReflectionV1, ReflectionV1alpha] : [])];
    // Public: Check's body is the guard's to decode; Connect reads Watch's itself, within a small limit.
    router.service(Health, createHealthServiceImpl(served.map((s) => s.typeName), isServing, stopping), {
      readMaxBytes: PUBLIC_BODY_LIMIT,
      // Check's answers and errors are signed like every other unary answer (Watch streams are not).
      // Watch's one message is Connect's to decode: damaged input is invalid_request there too, not INTERNAL.
      interceptors: [createDecodedRequestInterceptor(), createSigningInterceptor({ keys: ctx.signingKeys, now: ctx.clock }), createStreamReadErrorsInterceptor()],
    });
    // Off: a reflection call is unknown_method (UNIMPLEMENTED), as for any method not served.
    if (reflection) registerReflection(router, served);
    // Each wraps every handler registered above; the last applied runs first.
    guardRpcRequestBodies(router, bodyGuard);
    refuseUnsupportedRequests(router, refusals);
  };
}
