import { createContextValues, type Interceptor } from "@connectrpc/connect";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import { createListenerSetSignal } from "./listener-set-signal.js";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../app/app-context.js";
import { MAX_REQUEST_BYTES } from "../base/limits.js";
import { registerDashboardRoutes } from "../dashboard/dashboard-routes.js";
import { registerHealthRoutes } from "../http/health-routes.js";
import { registerJsonRoute } from "../http/json-route.js";
import { registerJwksRoute } from "../http/jwks-route.js";
import { registerMetricsRoute } from "../http/metrics-route.js";
import { registerOpenAiModerationsRoute } from "../http/openai/openai-route.js";
import { registerOpenApiRoute } from "../http/openapi-route.js";
import { registerUsageRoute } from "../http/usage-route.js";
import { signingNow } from "../http/send-json.js";
import { transportKey, untrustedArrivalKey } from "../interceptors/context-keys.js";
import { limitBodyArrival } from "../base/body-arrival.js";
import { observeUnrouted, registerRequestObservation } from "../observability/request-hooks.js";
import { observationKey, observeAs } from "../observability/request-observation.js";
import { acceptingAnyContentType } from "../rpc/refuse-unsupported-requests.js";
import { RPC_COMPRESSIONS } from "../rpc/compressions.js";
import type { createRoutes } from "../rpc/routes.js";
import { registerCors } from "./cors.js";
import { registerErrorHandlers } from "./error-handlers.js";
import { rpcProtocolOf } from "./rpc-protocol.js";

interface AppRoutes {
  interceptors: Interceptor[];
  /** Every RPC with its guard and refusals (rpc/routes.ts), as in-process tests register them. */
  rpcRoutes: ReturnType<typeof createRoutes>;
  isServing: () => boolean;
  /** METRICS_PORT is set: /metrics lives on its own listener, not here. */
  metricsElsewhere: boolean;
  /** Aborted when the shutdown grace is over (server.ts); without it, RPC_SHUTDOWN_GRACE_MS after close starts. */
  stopCalls?: AbortSignal;
}

/** Everything one listener serves: both listeners get the same routes (server.ts). */
export async function registerAppRoutes(app: FastifyInstance, ctx: AppContext, routes: AppRoutes): Promise<FastifyInstance> {
  leaveBodiesUnread(app);
  registerErrorHandlers(app, { log: ctx.log, signing: () => signingNow(ctx), unrouted: observeUnrouted({ log: ctx.log, metrics: ctx.metrics }) });
  // Observability: request id, one log line and the request metrics per request (src/observability).
  registerRequestObservation(app, { log: ctx.log, metrics: ctx.metrics });
  // After observation: a preflight answered here still has its request id, log line and metrics.
  await registerCors(app, ctx.config.corsOrigins);
  if (!routes.metricsElsewhere) registerMetricsRoute(app, ctx.metrics);
  registerOpenApiRoute(app);
  // Any Content-Type reaches the RPC handlers: their refusals answer the ones they do not serve.
  await app.register(acceptingAnyContentType(fastifyConnectPlugin), {
    routes: routes.rpcRoutes,
    // Our own limit (the body guard) answers first, with the API's code and a signature;
    // Connect's stays as a backstop for the bodies it reads itself (health, reflection, streams).
    readMaxBytes: MAX_REQUEST_BYTES + 1,
    // gzip and br (Connect's own) and deflate, which grpc-core offers and connect-node lacks.
    acceptCompression: [...RPC_COMPRESSIONS],
    // Connect's JSON with every implicit field written, as `/v1/moderate` writes it: left out, a
    // category scored 0 read `{}` and an unflagged answer had no `flagged`, which a caller reading
    // the JSON could take for "not evaluated" (docs/api.md: absent means not evaluated).
    jsonOptions: { alwaysEmitImplicit: true },
    shutdownSignal: routes.stopCalls ?? rpcShutdownSignal(app),
    contextValues: (req) => {
      const protocol = rpcProtocolOf(req.headers["content-type"]);
      const values = createContextValues().set(transportKey, protocol).set(observationKey, observeAs(req, protocol));
      return values.set(untrustedArrivalKey, () => limitBodyArrival(req.raw));
    },
  });
  registerJsonRoute(app, ctx, routes.interceptors, routes.stopCalls);
  registerOpenAiModerationsRoute(app, ctx, routes.interceptors, routes.stopCalls);
  registerHealthRoutes(app, ctx, routes.isServing);
  registerJwksRoute(app, { keys: ctx.signingKeys });
  registerUsageRoute(app, ctx, routes.interceptors);
  await registerDashboardRoutes(app, ctx);
  return app;
}

/** How long calls in flight may run once the listener starts closing, before they are aborted. */
const RPC_SHUTDOWN_GRACE_MS = 2_000;

/**
 * The signal that aborts every call still in flight RPC_SHUTDOWN_GRACE_MS after the listener starts
 * closing (what the plugin's own shutdownTimeoutMs does). Ours, so that it can take one abort
 * listener per call in flight at constant cost (listener-set-signal.ts): each call links its
 * signal to it.
 */
function rpcShutdownSignal(app: FastifyInstance): AbortSignal {
  const shutdown = createListenerSetSignal();
  app.addHook("preClose", (done) => {
    setTimeout(() => shutdown.abort(), RPC_SHUTDOWN_GRACE_MS);
    done();
  });
  return shutdown.signal;
}

/**
 * No body is read unless a route's own scope asks for it (the JSON routes, the RPC plugin, the
 * dashboard's forms). fastify's default parsers read and parsed a JSON or text body, up to the
 * 70 MB limit, for any route: an unknown path or another method included, before the 404 or
 * 405 and without a key (68 MB of nested brackets held the event loop 15 s).
 */
function leaveBodiesUnread(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
}
