import type { ConnectRouter, ContextValues } from "@connectrpc/connect";
import type { UniversalHandler } from "@connectrpc/connect/protocol";
import { universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node";
import type { FastifyError, FastifyInstance, FastifyRequest } from "fastify";
import { fastifyCodeOf } from "../errors/fastify-codes.js";

/** What the RPC plugin is given that this needs: the routes it builds, and each call's context values. */
export interface RpcPluginOptions {
  routes?: (router: ConnectRouter) => void;
  contextValues?: (request: FastifyRequest) => ContextValues;
}

/**
 * For the RPC plugin's scope: a Content-Type fastify cannot parse at all (an empty header,
 * "/json", "application/json, text/plain", ";") is refused by fastify before any parser or
 * handler runs, so the root error handler answered it in the JSON routes' shape, signed the HTTP
 * way and without grpc-status (found by an audit). Such a request is handed instead to the RPC
 * route's own handler, exactly as the Connect plugin hands every request: its first layer
 * (refuse-unsupported-requests.ts) refuses a Content-Type it does not serve, so the caller gets
 * the route's own 415 (Connect's error shape, x-error-code, signed for the route over an empty
 * request), as for text/plain. Fastify finds only media types that are not tokens unparseable,
 * and every type an RPC route serves is one, so the handler never reads such a body. (A QUERY
 * without a Content-Type, which fastify refuses the same way, gets the route's 405, as a GET does.)
 *
 * Returns the plugin's options with `routes` wrapped to note each handler by its path.
 */
export function refuseUnparseableContentTypes<Options extends RpcPluginOptions>(scope: FastifyInstance, options: Options): Options {
  const handlers = new Map<string, UniversalHandler>();
  const routes = options.routes;
  scope.setErrorHandler(async (error: FastifyError, request, reply) => {
    const handler = fastifyCodeOf(error) === "unsupported_media_type" ? handlers.get(request.routeOptions.url ?? "") : undefined;
    if (handler === undefined) throw error;
    const answer = await handler(universalRequestFromNodeRequest(request.raw, reply.raw, undefined, options.contextValues?.(request)));
    // As the plugin answers (connect-fastify's handleFastifyRequest): the reply's headers (request
    // id, CORS) go into the head written on the raw response. Hijacked once there is an answer
    // (a handler that threw goes on to the root error handler): fastify sends nothing more.
    reply.hijack();
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    await universalResponseToNodeResponse(answer, reply.raw);
  });
  if (routes === undefined) return options;
  return {
    ...options,
    // Called once, by the plugin, after createRoutes has put its refusals in front of every handler.
    routes: (router: ConnectRouter) => {
      routes(router);
      for (const handler of router.handlers) handlers.set(handler.requestPath, handler);
    },
  };
}
