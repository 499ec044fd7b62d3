import type { DescMethod } from "@bufbuild/protobuf";
import { createContextValues } from "@connectrpc/connect";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import fastify, { type FastifyInstance } from "fastify";
import type { AddressInfo, Server } from "node:net";
import { registerErrorHandlers } from "../http/error-handlers.js";
import { registerHealthRoutes } from "../http/health-routes.js";
import { registerJsonRoute } from "../http/json-route.js";
import { createInterceptorChain } from "../interceptors/chain.js";
import { transportKey } from "../interceptors/context-keys.js";
import { MAX_REQUEST_BYTES } from "../base/limits.js";
import { guardRpcRequestBodies } from "../rpc/guard-request-body.js";
import { API_SERVICES, createRoutes, GUARD_DECODED_SERVICES } from "../rpc/routes.js";
import { createApiKeyCheck, isPublicMethod } from "../interceptors/auth.js";
import type { AppContext } from "./app-context.js";
import { registerGrpcMessageEncoding } from "./grpc-message-encoding.js";
import { trackForGracefulClose } from "./graceful-close.js";
import { listenOnSharedPort } from "./shared-port.js";
import { answerClientError, frameworkErrorHandler } from "../http/framework-errors.js";
import { registerMetricsRoute } from "../http/metrics-route.js";
import { registerOpenApiRoute } from "../http/openapi-route.js";
import { startMetricsServer } from "../observability/metrics-server.js";
import { registerRequestObservation } from "../observability/request-hooks.js";
import { observationKey, observeAs } from "../observability/request-observation.js";
import { acceptingAnyContentType, refuseUnsupportedRequests } from "../rpc/refuse-unsupported-requests.js";

/** How long in-flight requests may take to finish once shutdown starts. */
const SHUTDOWN_GRACE_MS = 5_000;
import { registerJwksRoute } from "../http/jwks-route.js";
import { registerUsageRoute } from "../http/usage-route.js";
import { registerOpenAiModerationsRoute } from "../http/openai/openai-route.js";
import { registerDashboardRoutes } from "../dashboard/dashboard-routes.js";

interface RunningServer {
  /** http://host:port of the HTTP/1.1 listener (JSON, Connect, gRPC-Web, dashboard). */
  httpUrl: string;
  /** http://host:port of the h2c listener (gRPC, and every other protocol over HTTP/2). */
  grpcUrl: string;
  /** http://host:port of the METRICS_PORT listener, when one is configured. */
  metricsUrl?: string;
  close(): Promise<void>;
}

/**
 * Two listeners, one set of routes. Node's HTTP/2 server without TLS speaks only h2c with
 * prior knowledge, which gRPC clients use but browsers and curl's defaults do not; so
 * HTTP/1.1 callers get PORT and gRPC callers GRPC_PORT. Both serve every route.
 */
export async function startServer(ctx: AppContext): Promise<RunningServer> {
  let serving = true;
  const isServing = () => serving;
  const interceptors = createInterceptorChain(ctx);
  // METRICS_PORT: /metrics on a listener of its own, and then not on the API listeners.
  const metricsServer = ctx.config.metricsPort === undefined
    ? undefined
    : await startMetricsServer({ port: ctx.config.metricsPort, host: ctx.config.host, metrics: ctx.metrics });
  const routes = createRoutes(ctx, interceptors, isServing);
  // RPC bodies are read, then the key is checked, then they are inflated and decoded (once).
  const bodyGuard = {
    limit: MAX_REQUEST_BYTES,
    signer: ctx.signingKeys.signer,
    now: ctx.clock,
    decodedServices: GUARD_DECODED_SERVICES,
    needsApiKey: (method: DescMethod) => API_SERVICES.includes(method.parent) && !isPublicMethod(method),
    hasLiveKey: createApiKeyCheck(ctx.accounts),
  };

  const build = async (app: FastifyInstance) => {
    registerErrorHandlers(app, ctx.log);
    // Observability: request id, one log line and the request metrics per request (src/observability).
    registerRequestObservation(app, { log: ctx.log, metrics: ctx.metrics });
    if (!metricsServer) registerMetricsRoute(app, ctx.metrics);
    registerOpenApiRoute(app);
    // Any Content-Type reaches the RPC handlers: refuseUnsupportedRequests answers the ones they do not serve.
    await app.register(acceptingAnyContentType(fastifyConnectPlugin), {
      routes: (router) => {
        routes(router);
        guardRpcRequestBodies(router, bodyGuard);
        refuseUnsupportedRequests(router, { signer: ctx.signingKeys.signer, now: ctx.clock });
      },
      // Our own limit (guardRpcRequestBodies) answers first, with the API's code and a signature;
      // Connect's stays as a backstop for the bodies it reads itself (health, reflection, streams).
      readMaxBytes: MAX_REQUEST_BYTES + 1,
      shutdownTimeoutMs: 2_000,
      contextValues: (req) => {
        const protocol = protocolOf(req.headers["content-type"]);
        return createContextValues().set(transportKey, protocol).set(observationKey, observeAs(req, protocol));
      },
    });
    registerJsonRoute(app, ctx, interceptors);
    registerOpenAiModerationsRoute(app, ctx, interceptors);
    registerHealthRoutes(app, ctx, isServing);
    registerJwksRoute(app, { keys: ctx.signingKeys });
    registerUsageRoute(app, ctx, interceptors);
    await registerDashboardRoutes(app, ctx);
    return app;
  };

  const options = {
    logger: false,
    bodyLimit: MAX_REQUEST_BYTES,
    keepAliveTimeout: 65_000,
    // Malformed URLs and broken HTTP framing still answer in the API's error shape.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler: answerClientError,
    // request.ip is the proxy's client address only for proxies TRUST_PROXY names (log-in and sign-up limits key on it).
    trustProxy: fastifyTrustProxy(ctx.config.trustProxy),
  };
  const http1 = await build(fastify({ ...options, forceCloseConnections: "idle" as const }));
  // The HTTP/2 overload's option types differ only in the request type; the handlers work on both.
  const h2c = await build(fastify({ ...(options as object), http2: true } as { http2: true }) as unknown as FastifyInstance);
  // gRPC (HTTP/2 only) is the one protocol whose messages need re-encoding.
  registerGrpcMessageEncoding(h2c);
  const closeHttp1 = trackForGracefulClose(http1, SHUTDOWN_GRACE_MS);
  const closeH2c = trackForGracefulClose(h2c, SHUTDOWN_GRACE_MS);

  // PORT == GRPC_PORT: one listener that hands each connection to the right server.
  // (Port 0 means "any free port" for each listener, as the tests use it.)
  const sharedPort = ctx.config.port === ctx.config.grpcPort && ctx.config.port !== 0;
  let front: Server | undefined;
  try {
    if (sharedPort) {
      await Promise.all([http1.ready(), h2c.ready()]);
      front = await listenOnSharedPort({ port: ctx.config.port, host: ctx.config.host, http1: http1.server, h2c: h2c.server });
    } else {
      await http1.listen({ port: ctx.config.port, host: ctx.config.host });
      await h2c.listen({ port: ctx.config.grpcPort, host: ctx.config.host });
    }
  } catch (error) {
    await Promise.allSettled([http1.close(), h2c.close(), metricsServer?.close()]);
    throw error;
  }
  const urlOf = (server: Server) => {
    const address = server.address() as AddressInfo;
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
    return `http://${host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host}:${address.port}`;
  };
  const httpUrl = urlOf(front ?? http1.server);
  const grpcUrl = urlOf(front ?? h2c.server);
  ctx.log.info({ http: httpUrl, grpc: grpcUrl, ...(metricsServer ? { metrics: metricsServer.url } : {}) }, "listening");

  return {
    httpUrl,
    grpcUrl,
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    async close() {
      serving = false;
      front?.close();
      await Promise.allSettled([closeHttp1(), closeH2c(), metricsServer?.close()]);
    },
  };
}

function protocolOf(contentType: string | undefined): "grpc" | "grpc-web" | "connect" {
  if (contentType?.startsWith("application/grpc-web")) return "grpc-web";
  if (contentType?.startsWith("application/grpc")) return "grpc";
  return "connect";
}

/** A hop count as proxy-addr's trust function (fastify's types take no number): hop 0 is the socket's peer. */
function fastifyTrustProxy(setting: boolean | number | string): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof setting === "number" ? (_address, hop) => hop < setting : setting;
}
