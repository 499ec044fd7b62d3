import { setMaxListeners } from "node:events";
import http2, { type Http2Server } from "node:http2";
import fastify, { type FastifyInstance } from "fastify";
import type { Server as HttpServer, ServerOptions } from "node:http";
import type { AddressInfo, Server } from "node:net";
import type { AppContext } from "../app/app-context.js";
import { MAX_REQUEST_BYTES } from "../base/limits.js";
import { createInterceptorChain } from "../interceptors/chain.js";
import { startMetricsServer } from "../observability/metrics-server.js";
import { MAX_WATCH_STREAMS } from "../rpc/health-service.js";
import { createRoutes } from "../rpc/routes.js";
import { registerAppRoutes } from "./app-routes.js";
import { answerConnectRequests, createClientErrorAnswer, createFrameworkErrorHandler } from "./framework-errors.js";
import { observeUnrouted } from "../observability/request-hooks.js";
import { trackForGracefulClose } from "./graceful-close.js";
import { ClosingUnreadResponse, ResettingUnreadHttp2Response } from "./close-unread-bodies.js";
import { limitHttp2RequestTime } from "./http2-request-timeout.js";
import { resetUnreadAnswers } from "./http2-unread-answers.js";
import { limitHttp1BodyArrival } from "./http1-body-arrival.js";
import { registerGrpcMessageEncoding } from "./grpc-message-encoding.js";
import { listenOnSharedPort } from "./shared-port.js";
import { createConnectionGuard, guardConnections } from "./connection-limits.js";
import { continueOnlyForLiveKeys, serveUnknownExpectations } from "./expect-continue.js";
import { listenOnEveryAddress } from "./listen-on-every-address.js";
import { bracketIpv6Authority } from "./ipv6-authority.js";
import { capOpenStreams, perAddressStreams } from "./http2-stream-cap.js";
import { destroyStuckSessions, LIVENESS_DEFAULTS } from "./http2-session-liveness.js";
import { createListenerSetSignal } from "./listener-set-signal.js";
import { ApiError } from "../errors/api-error.js";

/** Most concurrent streams per HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS; less where one address's share of HTTP2_MAX_STREAMS is less). */
export const MAX_STREAMS_PER_CONNECTION = 1000;

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
  // Aborted when shutdown starts: health says NOT_SERVING from then on, and Watch streams are told.
  const stopping = new AbortController();
  // One listener per open Health.Watch stream (at most MAX_WATCH_STREAMS): Node's warning of a
  // leak past 10 listeners was false, and printed once 11 streams were open.
  setMaxListeners(MAX_WATCH_STREAMS + 1, stopping.signal);
  const isServing = () => !stopping.signal.aborted;
  const interceptors = createInterceptorChain(ctx);
  // METRICS_PORT: /metrics on a listener of its own, and then not on the API listeners.
  const metricsServer = ctx.config.metricsPort === undefined
    ? undefined
    : await startMetricsServer({ port: ctx.config.metricsPort, host: ctx.config.host, metrics: ctx.metrics });
  // Aborted when the shutdown grace is over: calls still running are stopped, and answered.
  const stopCalls = createListenerSetSignal();
  const routes = {
    interceptors, rpcRoutes: createRoutes(ctx, interceptors, isServing, stopping.signal), isServing,
    metricsElsewhere: metricsServer !== undefined, stopCalls: stopCalls.signal,
  };
  const build = (app: FastifyInstance) => registerAppRoutes(app, ctx, routes);

  const unrouted = observeUnrouted({ log: ctx.log, metrics: ctx.metrics });
  const options = {
    logger: false,
    bodyLimit: MAX_REQUEST_BYTES,
    keepAliveTimeout: 65_000,
    // Malformed URLs and broken HTTP framing still answer in the API's error shape.
    frameworkErrors: createFrameworkErrorHandler(unrouted),
    clientErrorHandler: createClientErrorAnswer(unrouted),
    // request.ip is the proxy's client address only for proxies TRUST_PROXY names (log-in and sign-up limits key on it).
    trustProxy: fastifyTrustProxy(ctx.config.trustProxy),
  };
  // An answer given before the request body arrived closes its connection (close-unread-bodies.ts).
  const http1 = await build(fastify({ ...options, ...http1Timeouts(ctx.config.requestTimeoutMs), forceCloseConnections: "idle" as const }));
  // The HTTP/2 overload's option types differ only in the request type; the handlers work on both.
  // At most MAX_STREAMS_PER_CONNECTION streams open at once on one HTTP/2 connection (Node's default
  // is none: one connection held 15,000 public Health.Watch streams, about 1 GB). A client with
  // more calls in flight has the rest wait for a free stream.
  const h2c = await build(
    fastify({ ...(options as object), http2: true, serverFactory: cappedHttp2ServerFactory(ctx) } as { http2: true }) as unknown as FastifyInstance,
  );
  // A stream answered before its body was read is reset once the answer is sent (close-unread-bodies.ts).
  limitHttp2RequestTime(h2c.server as unknown as Http2Server, ctx.config.requestTimeoutMs, { streamsBothWays: (path) => path.startsWith("/grpc.reflection.") });
  // An answer the client does not take (its window shut) gives back its stream's place (http2-unread-answers.ts).
  resetUnreadAnswers(h2c.server as unknown as Http2Server);
  limitHttp1BodyArrival(http1.server as unknown as HttpServer);
  continueOnlyForLiveKeys(http1.server as unknown as HttpServer, ctx.accounts);
  serveUnknownExpectations(http1.server as unknown as HttpServer);
  answerConnectRequests(http1.server as unknown as HttpServer, unrouted);
  // gRPC (HTTP/2 only) is the one protocol whose messages need re-encoding.
  registerGrpcMessageEncoding(h2c);
  const stop = () => stopCalls.abort(new ApiError("service_unavailable", "The service is shutting down; retry the call.", { headers: { "retry-after": "1" } }));
  const closeHttp1 = trackForGracefulClose(http1, ctx.config.shutdownGraceMs, stop);
  const closeH2c = trackForGracefulClose(h2c, ctx.config.shutdownGraceMs, stop);

  // PORT == GRPC_PORT: one listener that hands each connection to the right server.
  // (Port 0 means "any free port" for each listener, as the tests use it.)
  const sharedPort = ctx.config.port === ctx.config.grpcPort && ctx.config.port !== 0;
  let front: Server | undefined;
  let h2cListeners: Server[] = [];
  let http1Listeners: Server[] = [];
  // MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS over both protocols' listeners together.
  const guard = createConnectionGuard(ctx.config.connectionLimits, (reason) => ctx.metrics.connectionRefused(reason));
  ctx.metrics.watchOpenConnections(() => guard.open());
  try {
    if (sharedPort) {
      await Promise.all([http1.ready(), h2c.ready()]);
      front = await listenOnSharedPort({ port: ctx.config.port, host: ctx.config.host, http1: http1.server, h2c: h2c.server, firstByteTimeoutMs: http1.server.headersTimeout, guard });
    } else {
      guardConnections(http1.server as unknown as Server, guard);
      guardConnections(h2c.server as unknown as Server, guard);
      await Promise.all([http1.ready(), h2c.ready()]);
      // Each address of HOST hands its connections to the one HTTP/1.1 server, as for h2c: fastify's
      // own listen() bound a second address (HOST=localhost: ::1) to a server of its own, without
      // this module's wiring (connection limits, graceful close, body arrival, Expect, CONNECT).
      http1Listeners = await listenOnEveryAddress(http1.server as unknown as Server, { port: ctx.config.port, host: ctx.config.host });
      // Node's HTTP/1.1 server starts checking its connections' timeouts on 'listening' (shared-port.ts).
      http1.server.emit("listening");
      h2cListeners = await listenOnEveryAddress(h2c.server as unknown as Server, { port: ctx.config.grpcPort, host: ctx.config.host });
    }
  } catch (error) {
    for (const listener of http1Listeners) listener.close();
    await Promise.allSettled([http1.close(), h2c.close(), metricsServer?.close()]);
    throw error;
  }
  const urlOf = (server: Server) => {
    const address = server.address() as AddressInfo;
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
    return `http://${host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host}:${address.port}`;
  };
  const httpUrl = urlOf(front ?? http1Listeners[0]!);
  const grpcUrl = urlOf(front ?? h2cListeners[0]!);
  ctx.log.info({ http: httpUrl, grpc: grpcUrl, ...(metricsServer ? { metrics: metricsServer.url } : {}) }, "listening");

  return {
    httpUrl,
    grpcUrl,
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    async close() {
      stopping.abort();
      front?.close();
      for (const listener of [...http1Listeners, ...h2cListeners]) listener.close();
      await Promise.allSettled([closeHttp1(), closeH2c(), metricsServer?.close()]);
    },
  };
}

/**
 * The h2c server as fastify would make it (idle sessions closed, no socket timeout), with the
 * per-connection stream limit, the unread-body reset, an IPv6 literal's authority bracketed
 * (ipv6-authority.ts), and HTTP2_MAX_STREAMS across connections (http2-stream-cap.ts) in front
 * of fastify's handler.
 */
function cappedHttp2ServerFactory(ctx: AppContext) {
  return (handler: Parameters<typeof capOpenStreams>[0], fastifyOptions: { http2SessionTimeout?: number }) => {
    const maxStreams = ctx.config.http2MaxStreams;
    const share = perAddressStreams(maxStreams, ctx.config.connectionLimits);
    const cap = capOpenStreams(handler, { total: maxStreams, perAddress: share }, () => ctx.metrics.http2StreamRefused());
    ctx.metrics.watchOpenHttp2Streams(cap.open);
    // Advertised no higher than one address's share: grpc-core (Python, C++, Ruby) queues calls only
    // against this setting, and failed every call past the share at once with a bare UNAVAILABLE.
    const settings = { maxConcurrentStreams: Math.min(MAX_STREAMS_PER_CONNECTION, share) };
    const server = http2.createServer({ settings, Http2ServerResponse: ResettingUnreadHttp2Response }, (request, response) => {
      bracketIpv6Authority(request.headers, request.socket.localPort);
      cap.handle(request, response);
    });
    // Idle sessions close as fastify closes them; wedged ones, which would hold their streams (and
    // places under the cap) for good, are destroyed (http2-session-liveness.ts).
    destroyStuckSessions(server, { ...LIVENESS_DEFAULTS, idleMs: fastifyOptions.http2SessionTimeout ?? 72_000, underPressure: () => cap.open() >= maxStreams / 2 });
    return server;
  };
}

/** A hop count as proxy-addr's trust function (fastify's types take no number): hop 0 is the socket's peer. */
function fastifyTrustProxy(setting: boolean | number | string): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof setting === "number" ? (_address, hop) => hop < setting : setting;
}

/**
 * REQUEST_TIMEOUT_MS for HTTP/1.1: the whole request must arrive within it (fastify passes 0,
 * "never", to Node), and its headers within Node's 60 s or that, whichever is less. Node checks
 * every connectionsCheckingInterval (30 s by default), so a short limit is checked more often.
 */
function http1Timeouts(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    http: {
      ServerResponse: ClosingUnreadResponse,
      headersTimeout: Math.min(60_000, requestTimeoutMs),
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(requestTimeoutMs / 4))),
    } as ServerOptions,
  };
}
