import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";
import { requestLogger, type Logger } from "../base/logger.js";
import { ERROR_CODE_HEADER } from "../errors/api-error.js";
import type { Metrics } from "./metrics.js";
import { REQUEST_ID_HEADER, RequestObservation, requestIdFrom, type Protocol } from "./request-observation.js";

/** Routes outside the API whose traffic would drown the request log (scrapes, probes): metered, logged at debug. */
const QUIET_ROUTES = new Set(["/metrics", "/healthz", "/readyz"]);

/**
 * Observes every request a listener routes: a request id (the caller's X-Request-Id when well
 * formed, else a new one) echoed in the X-Request-Id response header (initial metadata on gRPC),
 * then, once the answer is sent, one log line and the request metrics. Callback-style hooks: an
 * async hook costs a promise per request on the hot path.
 *
 * The log line names its fields one by one: never the body, the texts or the API key.
 */
export function registerRequestObservation(app: FastifyInstance, options: { log: Logger; metrics: Metrics }): void {
  const deps = { log: requestLogger(options.log), metrics: options.metrics };
  app.decorateRequest("observation", null);
  // Each route's URL, the label of its requests, noted by a hook of the route itself: fastify's
  // request.routeOptions builds a 12-field object (and asks the router about constraints) on
  // every read. Routes added before this call, and requests that no route matched, fall back to it.
  app.addHook("onRoute", (route) => {
    const url = route.url;
    const noteRoute: onRequestHookHandler = (request, _reply, done) => {
      if (request.observation) request.observation.route = url;
      done();
    };
    route.onRequest = route.onRequest === undefined ? [noteRoute] : [noteRoute, ...[route.onRequest].flat()];
  });
  app.addHook("onRequest", (request, reply, done) => {
    const observation = new RequestObservation(requestIdFrom(request.headers[REQUEST_ID_HEADER]), performance.now());
    request.observation = observation;
    // On the reply, not the raw response: fastify's send, the Connect plugin and the JSON routes'
    // sendJsonSignedAhead all copy the reply's headers into the head they write. A header on the
    // raw response sends Node's writeHead down its slow path (every header validated and copied
    // once more), which cost the JSON route several µs per answer.
    reply.header(REQUEST_ID_HEADER, observation.requestId);
    // When the response is finished, fails, or is closed before it finished (the caller hung up
    // or reset its HTTP/2 stream: then neither of the others may come), as fastify's onResponse
    // hook would be called. Not that hook: any onResponse hook makes fastify time and watch every
    // response itself (two listeners, its hook runner, timers' clean-up), about 1 µs more per
    // request on the event loop. The first of the three counts; 'close' follows 'finish' anyway.
    const raw = reply.raw;
    let observed = false;
    const onDone = () => {
      if (observed) return;
      observed = true;
      observeFinished(request, reply, deps);
    };
    raw.on("finish", onDone);
    raw.on("error", onDone);
    raw.on("close", onDone);
    done();
  });
}

function observeFinished(request: FastifyRequest, reply: FastifyReply, deps: { log: Logger; metrics: Metrics }): void {
  try {
    finish(request, reply, deps);
  } catch {
    // As fastify does with a hook's error when it has no logger: the answer is already sent.
  }
}

function finish(request: FastifyRequest, reply: FastifyReply, deps: { log: Logger; metrics: Metrics }): void {
  const observation = request.observation;
  if (!observation) return;
  const seconds = (performance.now() - observation.started) / 1000;
  const raw = RAW_ANSWERS.get(reply.raw);
  const cancelled = raw === undefined && cancelledByCaller(reply);
  const status = raw ? raw.status : cancelled ? CLIENT_CLOSED_REQUEST : reply.raw.statusCode;
  // Unknown paths share one label: a scanner must not create a series per path it tries.
  const route = observation.route ?? request.routeOptions.url ?? "unmatched";
  const code = raw ? raw.code : cancelled ? "cancelled" : (observation.errorCode ?? (status >= 400 ? headerCode(reply) : ""));
  deps.metrics.request(route, observation.protocol, status, code, seconds);
  if (code === "rate_limit_exceeded") deps.metrics.rateLimitRejected("exceeded");
  else if (code === "rate_limiter_unavailable") deps.metrics.rateLimitRejected("unavailable");

  // The line is built only when its level is logged (npm run bench's services log at warn), and
  // field by field: object spreads in a literal take V8's slow path. Its fields keep their order.
  const quiet = QUIET_ROUTES.has(route);
  if (deps.log.isLevelEnabled && !deps.log.isLevelEnabled(quiet ? "debug" : "info")) return;
  const line: RequestLine = { requestId: observation.requestId, method: request.method, route, protocol: observation.protocol, status };
  if (code) line.code = code;
  if (observation.accountId) line.accountId = observation.accountId;
  line.durationMs = Math.round(seconds * 1e6) / 1e3;
  if (quiet) deps.log.debug(line, "request");
  else deps.log.info(line, "request");
}

interface RequestLine {
  requestId: string;
  method: string;
  route: string;
  protocol: string;
  status: number;
  code?: string;
  accountId?: string;
  durationMs?: number;
}

/**
 * Routed requests answered outside their route, on the socket or stream itself: a body that did
 * not arrive within REQUEST_TIMEOUT_MS (408), broken framing in a body (400). Counted and logged
 * with that answer, not as a caller's 499.
 */
const RAW_ANSWERS = new WeakMap<object, { status: number; code: string }>();

export function markAnsweredRaw(response: object, status: number, code: string): void {
  RAW_ANSWERS.set(response, { status, code });
}

/** Marks a routed request whose body came too late: it is counted and logged as 408 request_timeout. */
export function markTimedOut(response: object): void {
  markAnsweredRaw(response, 408, "request_timeout");
}

/** The status logged and counted for a call its caller gave up on first ("client closed request", as nginx has it). */
const CLIENT_CLOSED_REQUEST = 499;

/**
 * Whether the answer never reached the caller: the response closed or failed before it finished
 * (an HTTP/1.1 caller hung up), or the caller reset its HTTP/2 stream (a gRPC client's cancel or
 * deadline), after which the compatibility response may still end as if answered, with status
 * 200 and no code. Such calls were logged and counted as successes that usage leaves out.
 */
function cancelledByCaller(reply: FastifyReply): boolean {
  if (!reply.raw.writableFinished) return true;
  const stream = (reply.raw as { stream?: { rstCode?: number } }).stream;
  return stream?.rstCode !== undefined && stream.rstCode !== 0;
}

/** An error answered outside the chain but in its shape (e.g. the RPC body guard) carries its code as a header. */
function headerCode(reply: FastifyReply): string {
  // Fastify's own header store first: a reply sent through fastify (the dashboard's pages) writes
  // its headers with writeHead, which leaves the raw response's store empty (its code read "").
  const value = reply.getHeader(ERROR_CODE_HEADER) ?? reply.raw.getHeader(ERROR_CODE_HEADER);
  return typeof value === "string" ? value : "";
}

/** The labels of an answer given before routing, where they are not "unmatched" and "http" (see observeUnrouted). */
export interface UnroutedLabels {
  route: string;
  protocol: Protocol;
}

/** Counts and logs an answer given before routing (observeUnrouted). */
export type ObserveUnrouted = (method: string, status: number, code: string, requestId?: string, labels?: UnroutedLabels) => void;

/**
 * Counts and logs an answer given before any route saw the request, so no observation exists:
 * a malformed URL (fastify's framework errors) or broken HTTP framing (the client error handler).
 * Under the "unmatched" route label, like an unknown path; without them, such 400s (13,700 of
 * them in one fuzzing run) were in neither the metrics nor the log. A served path asked with a
 * method fastify has no router for (any token is an HTTP/2 :method) passes its route's labels.
 */
export function observeUnrouted(options: { log: Logger; metrics: Metrics }): ObserveUnrouted {
  const log = requestLogger(options.log);
  return (method, status, code, requestId, labels = UNMATCHED) => {
    // Not timed: no start was taken, and zeros would pull down the unknown paths' latency.
    options.metrics.request(labels.route, labels.protocol, status, code, undefined);
    const line: RequestLine = { requestId: requestId ?? requestIdFrom(undefined), method, route: labels.route, protocol: labels.protocol, status, code };
    log.info(line, "request");
  };
}

const UNMATCHED: UnroutedLabels = { route: "unmatched", protocol: "http" };
