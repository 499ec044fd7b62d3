import type { FastifyError, FastifyInstance } from "fastify";
import type { Logger } from "../base/logger.js";
import { ApiError, toApiError } from "../errors/api-error.js";
import { fastifyCodeOf } from "../errors/fastify-codes.js";
import { answerMethodNotAllowed, methodNotAllowedAnswerOf, sendSignedJson } from "../http/send-json.js";
import { noteErrorCode } from "../observability/request-observation.js";
import type { Signer } from "../signing/signer.js";
import { observeUnroutedAnswer } from "./framework-errors.js";
import { answerUnknownGrpcMethod, grpcProtocolOf } from "./unknown-rpc-method.js";

/** The methods a route here may be registered for; a path with some of them answers the rest 405. */
const ROUTED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/**
 * Every HTTP error, including unknown routes, answers {"error":{"code","message"}}. An unknown
 * route is signed like the 405 for another method (bound to an empty body: none was read); a
 * gRPC call to an unknown method gets gRPC's answer instead (unknown-rpc-method.ts).
 */
export function registerErrorHandlers(app: FastifyInstance, deps: { log: Logger; signing: () => { signer: Signer; nowMs: number }; unrouted: (method: string, status: number, code: string, requestId?: string) => void }): void {
  const { log } = deps;
  app.setNotFoundHandler((request, reply) => {
    const grpc = grpcProtocolOf(request);
    if (grpc) return answerUnknownGrpcMethod(request, reply, grpc, deps.signing());
    const path = request.url.split("?")[0]!;
    // A JSON route's path: its own 405, whatever the method (send-json.ts registerMethodNotAllowed).
    const routeAnswer = methodNotAllowedAnswerOf(app, path);
    if (routeAnswer) return routeAnswer(request, reply);
    // A path served with other methods (POST /healthz, DELETE /metrics) is a wrong method, not an unknown path.
    const allowed = ROUTED_METHODS.filter((method) => app.hasRoute({ method, url: path }));
    if (allowed.length > 0) {
      // Counted and logged under the route (a served path: no series per path a scanner tries);
      // as `unmatched`, dashboards read a DELETE /readyz as an unknown path.
      if (request.observation) request.observation.route = path;
      const body = { error: { code: "method_not_allowed", message: `Use ${allowed.join(" or ")} for ${path.slice(0, 200)}.` } };
      // Only the API's routes are named in a signature (docs/signing.md, Scope): /healthz is none.
      return answerMethodNotAllowed(request, reply, { ...deps.signing(), scope: isApiRoute(path) ? { route: path } : undefined }, allowed.join(", "), body);
    }
    const error = new ApiError("not_found", `No route for ${request.method} ${path}.`);
    noteErrorCode(request, error.code);
    // No scope: no route was called (the path is the caller's, not a route of this server).
    return sendSignedJson(reply, { ...deps.signing(), requestBody: undefined, scope: undefined }, 404, { error: { code: error.code, message: error.message } }, []);
  });
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const mapped = fastifyCodeOf(error);
    const message = mapped === "not_found" ? `No route for ${request.method.slice(0, 32)} ${request.url.split("?")[0]!.slice(0, 200)}.` : error.message;
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

/** The moderation API's own JSON routes (/v1/...), whose answers name their route when signed. */
function isApiRoute(path: string): boolean {
  return path.startsWith("/v1/");
}
