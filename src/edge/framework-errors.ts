import type { Server as HttpServer, IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { isDashboardUrl, sendRefusalPage } from "../dashboard/replies.js";
import { ERROR_CODE_HEADER, type ErrorCode } from "../errors/api-error.js";
import { markAnsweredRaw, type ObserveUnrouted, type UnroutedLabels } from "../observability/request-hooks.js";
import { REQUEST_ID_HEADER, requestIdFrom } from "../observability/request-observation.js";

/**
 * Errors fastify raises before routing (e.g. a bad URL escape), in the API's shape (a page for a
 * dashboard address), with a request id like every routed answer (the caller's, when well formed).
 */
export function createFrameworkErrorHandler(observe: ObserveUnrouted) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    observeUnroutedAnswer(observe, request, reply, 400, "invalid_request");
    if (isDashboardUrl(request.url)) sendRefusalPage(reply, 400, "invalid_request", describe(error));
    else answerFrameworkError(error, reply);
  };
}

/**
 * Counts and logs an answer fastify gives a request the request hooks never saw (before routing,
 * or a method no router knows), and gives it a request id as every answer has: the caller's when
 * well formed. The method is cut short for the log: a caller may send one of kilobytes. `labels`
 * names the route of a served path (unmatched otherwise).
 */
export function observeUnroutedAnswer(
  observe: ObserveUnrouted, request: FastifyRequest, reply: FastifyReply, status: number, code: string, labels?: UnroutedLabels,
): void {
  const requestId = requestIdFrom(request.headers[REQUEST_ID_HEADER]);
  reply.header(REQUEST_ID_HEADER, requestId);
  observe(request.method.slice(0, 32), status, code, requestId, labels);
}

function answerFrameworkError(error: FastifyError, reply: FastifyReply): void {
  void reply
    .code(400)
    .header("content-type", "application/json; charset=utf-8")
    .header(ERROR_CODE_HEADER, "invalid_request")
    .send(JSON.stringify({ error: { code: "invalid_request", message: describe(error) } }));
}

function describe(error: FastifyError): string {
  if (error.code === "FST_ERR_BAD_URL") return "The request URL is malformed.";
  return "The request is malformed.";
}

/**
 * Broken HTTP framing (bad Content-Length, CL with TE, …): a raw 400 in the API's shape, then close.
 * Two client errors are not malformed requests and say so: headers over Node's limit (431) and a
 * request whose headers or body did not arrive within Node's headersTimeout / requestTimeout (408,
 * a slow or stalled client; it was counted as 400 invalid_request).
 */
export function createClientErrorAnswer(observe: ObserveUnrouted) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    const answer = CLIENT_ERROR_ANSWERS[error.code ?? ""] ?? MALFORMED;
    const inFlight = (socket as { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
    // A caller that reset or closed its connection is answered nothing, and is no malformed request
    // (each reset of a kept-alive connection was counted as a 400 nobody received); its route, if
    // any, counts a 499. As Node's own handler: no raw answer into a response whose head is out.
    // An end mid-body is a caller gone only where a request is in flight; mid-headers it is still
    // a request that never came whole, counted as before (unmatched 400).
    const gone = CALLER_GONE.has(error.code ?? "") || (error.code === "HPE_INVALID_EOF_STATE" && inFlight !== undefined);
    if (!socket.writable || gone || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    // A request its route already holds is counted by the route, with this answer (a late body
    // as 408, a broken chunk as 400), not as a caller's 499 beside an "unmatched" one.
    if (inFlight) {
      markAnsweredRaw(inFlight, answer.status, answer.code);
      answerClientError(answer, socket);
      return;
    }
    // No headers were read whole, so no caller's id: a new one, in the answer and its log line alike.
    const requestId = requestIdFrom(undefined);
    observe("-", answer.status, answer.code, requestId);
    answerClientError(answer, socket, requestId);
  };
}

/**
 * Client errors that mean the caller's connection is gone, not that its request was malformed.
 * So is HPE_INVALID_EOF_STATE on a routed request (above): the caller closed its side before the
 * declared body arrived, as a client does that gives up on an upload; each was a 400 on the route.
 */
const CALLER_GONE = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED", "ETIMEDOUT"]);

interface ClientErrorAnswer {
  status: number;
  statusLine: string;
  code: ErrorCode;
  message: string;
  /** Header lines beside the usual ones, each ending in CRLF. */
  headerLines?: string;
}

/**
 * CONNECT asks for a proxy tunnel, and Node hands it to the server's 'connect' event: with no
 * listener the socket was destroyed unanswered (found by an audit). This server is no proxy: a 405
 * in the API's shape, then close, unsigned like broken framing (no route was called; the target
 * of a CONNECT is a host, not one of our paths). Allow names the methods served here at all.
 */
export function answerConnectRequests(server: HttpServer, observe: ObserveUnrouted): void {
  server.on("connect", (request: IncomingMessage, socket: Socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    // Its headers were read: the caller's id when well formed, as on a routed answer.
    const requestId = requestIdFrom(request.headers[REQUEST_ID_HEADER]);
    observe("CONNECT", CONNECT_ANSWER.status, CONNECT_ANSWER.code, requestId);
    answerClientError(CONNECT_ANSWER, socket, requestId);
  });
}

const CONNECT_ANSWER: ClientErrorAnswer = {
  status: 405,
  statusLine: "405 Method Not Allowed",
  code: "method_not_allowed",
  message: "CONNECT is not served: this server is no proxy.",
  headerLines: "allow: GET, HEAD, POST\r\n",
};

const MALFORMED: ClientErrorAnswer = { status: 400, statusLine: "400 Bad Request", code: "invalid_request", message: "The request is not valid HTTP." };

const CLIENT_ERROR_ANSWERS: Record<string, ClientErrorAnswer> = {
  HPE_HEADER_OVERFLOW: { status: 431, statusLine: "431 Request Header Fields Too Large", code: "payload_too_large", message: "The request headers are too large." },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, statusLine: "408 Request Timeout", code: "request_timeout", message: "The request did not arrive in time." },
};

/** How long a refused client gets to read its answer before the socket is destroyed. */
const ANSWER_GRACE_MS = 1_000;

/**
 * The answer, then the socket destroyed once it is flushed (or after a grace): end() alone only
 * half-closes it, and a client that kept its side open went on sending a body that was still
 * parsed and held (found after a 408: held bytes climbing for as long as the client liked).
 * `requestId` is the id its log line has; a request in flight (counted by its route) has one the
 * socket cannot see, and goes without.
 */
function answerClientError(answer: ClientErrorAnswer, socket: Socket, requestId?: string): void {
  const body = JSON.stringify({ error: { code: answer.code, message: answer.message } });
  const idLine = requestId === undefined ? "" : `${REQUEST_ID_HEADER}: ${requestId}\r\n`;
  setTimeout(() => socket.destroy(), ANSWER_GRACE_MS).unref();
  socket.once("finish", () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${answer.statusLine}\r\n` +
      `content-type: application/json; charset=utf-8\r\n${ERROR_CODE_HEADER}: ${answer.code}\r\n${idLine}${answer.headerLines ?? ""}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
