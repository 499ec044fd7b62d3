import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "../base/logger.js";
import { ApiError, toApiError } from "../errors/api-error.js";
import { fastifyCodeOf } from "../errors/fastify-codes.js";
import { answerMethodNotAllowed, methodNotAllowedAnswerOf, sendSignedJson } from "../http/send-json.js";
import type { ObserveUnrouted } from "../observability/request-hooks.js";
import { noteErrorCode, type Protocol } from "../observability/request-observation.js";
import type { Signer } from "../signing/signer.js";
import { observeUnroutedAnswer } from "./framework-errors.js";
import { answerUnknownGrpcMethod, grpcProtocolOf } from "./unknown-rpc-method.js";

/** The methods a route here may be registered for; a path with some of them answers the rest 405. */
const ROUTED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/**
 * Errors fastify raises for a method no route is registered for, before the not-found handler can
 * answer: any :method token over HTTP/2 has no router tree at all (FST_ERR_NOT_FOUND), and over
 * HTTP/1.1 the not-found route checks the Content-Type of QUERY (or of a body) first.
 */
const NO_ROUTE_FOR_METHOD = new Set(["FST_ERR_NOT_FOUND", "FST_ERR_ROUTE_MISSING_CONTENT_TYPE", "FST_ERR_CTP_INVALID_MEDIA_TYPE"]);

type Signing = () => { signer: Signer; nowMs: number };

/** A served path's 405 for a method it is not served with, and the protocol it is counted under. */
interface WrongMethodAnswer {
  protocol: Protocol;
  answer: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

/**
 * Every HTTP error, including unknown routes, answers {"error":{"code","message"}}. An unknown
 * route is signed like the 405 for another method (bound to an empty body: none was read); a
 * gRPC call to an unknown method gets gRPC's answer instead (unknown-rpc-method.ts).
 */
export function registerErrorHandlers(app: FastifyInstance, deps: { log: Logger; signing: Signing; unrouted: ObserveUnrouted }): void {
  const { log } = deps;
  const answerNotFound = (request: FastifyRequest, reply: FastifyReply) => {
    const grpc = grpcProtocolOf(request);
    if (grpc) return answerUnknownGrpcMethod(request, reply, grpc, deps.signing());
    const path = pathOf(request);
    const wrongMethod = wrongMethodAnswerFor(app, path, deps.signing);
    if (wrongMethod) return wrongMethod.answer(request, reply);
    const error = new ApiError("not_found", `No route for ${request.method} ${path}.`);
    noteErrorCode(request, error.code);
    // No scope: no route was called (the path is the caller's, not a route of this server).
    return sendSignedJson(reply, { ...deps.signing(), requestBody: undefined, scope: undefined }, 404, { error: { code: error.code, message: error.message } }, []);
  };
  app.setNotFoundHandler(answerNotFound);
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    // A served path asked with a method no route has: the not-found handler's 405, which fastify
    // skipped (FOO /healthz over HTTP/2 was a 404 not_found, QUERY /healthz a 415, both unmatched).
    const wrongMethod = request.is404 && NO_ROUTE_FOR_METHOD.has(error.code) ? wrongMethodAnswerFor(app, pathOf(request), deps.signing) : undefined;
    if (wrongMethod) {
      // Without a router tree for the method no request hook ran: counted here, under its route.
      if (!request.observation) {
        observeUnroutedAnswer(deps.unrouted, request, reply, 405, "method_not_allowed", { route: pathOf(request), protocol: wrongMethod.protocol });
      }
      return wrongMethod.answer(request, reply);
    }
    // An unknown path with a Content-Type fastify cannot parse ("/json", an empty header): fastify
    // refuses the type before the not-found handler runs, and the path was answered 415, not 404.
    if (request.is404 && error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return answerNotFound(request, reply);
    const mapped = fastifyCodeOf(error);
    const message = mapped === "not_found" ? `No route for ${request.method.slice(0, 32)} ${pathOf(request).slice(0, 200)}.` : error.message;
    const apiError = mapped ? new ApiError(mapped, message) : toApiError(error);
    if (apiError.code === "internal_error") log.error({ err: error, requestId: request.observation?.requestId }, "unhandled error");
    noteErrorCode(request, apiError.code);
    // Raised before the request hooks ran (no observation): counted and logged as unrouted.
    if (!request.observation) observeUnroutedAnswer(deps.unrouted, request, reply, apiError.httpStatus, apiError.code);
    // Signed like every answer, bound to an empty body (a route that read one answers its own
    // errors); apiError.headers carries e.g. Retry-After on storage_unavailable.
    const body = { error: { code: apiError.code, message: apiError.message } };
    const route = request.routeOptions?.url;
    return sendSignedJson(reply, { ...deps.signing(), requestBody: undefined, scope: route !== undefined && isApiRoute(route) ? { route } : undefined }, apiError.httpStatus, body, [new Headers(apiError.headers)]);
  });
}

/**
 * The 405 for a path served with other methods (POST /healthz, DELETE /metrics): a wrong method,
 * not an unknown path. Undefined for a path no route serves.
 */
function wrongMethodAnswerFor(app: FastifyInstance, path: string, signing: Signing): WrongMethodAnswer | undefined {
  // A JSON route's path: its own 405, whatever the method (send-json.ts registerMethodNotAllowed).
  const routeAnswer = methodNotAllowedAnswerOf(app, path);
  if (routeAnswer) return { protocol: "json", answer: routeAnswer };
  const allowed = ROUTED_METHODS.filter((method) => app.hasRoute({ method, url: path }));
  if (allowed.length === 0) return undefined;
  return {
    protocol: "http",
    answer: (request, reply) => {
      // Counted and logged under the route (a served path: no series per path a scanner tries);
      // as `unmatched`, dashboards read a DELETE /readyz as an unknown path.
      if (request.observation) request.observation.route = path;
      const body = { error: { code: "method_not_allowed", message: `Use ${allowed.join(" or ")} for ${path.slice(0, 200)}.` } };
      // Only the API's routes are named in a signature (docs/signing.md, Scope): /healthz is none.
      return answerMethodNotAllowed(request, reply, { ...signing(), scope: isApiRoute(path) ? { route: path } : undefined }, allowed.join(", "), body);
    },
  };
}

function pathOf(request: FastifyRequest): string {
  return request.url.split("?")[0]!;
}

/** The moderation API's own JSON routes (/v1/...), whose answers name their route when signed. */
function isApiRoute(path: string): boolean {
  return path.startsWith("/v1/");
}
