import type { Socket } from "node:net";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { ERROR_CODE_HEADER } from "../errors/api-error.js";

/** Counts and logs an answer given before routing (observability/request-hooks.ts observeUnrouted). */
type ObserveUnrouted = (method: string, status: number, code: string) => void;

/** Errors fastify raises before routing (e.g. a bad URL escape), in the API's shape. */
export function createFrameworkErrorHandler(observe: ObserveUnrouted) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    observe(request.method, 400, "invalid_request");
    answerFrameworkError(error, reply);
  };
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

/** Broken HTTP framing (bad Content-Length, CL with TE, …): a raw 400 in the API's shape, then close. */
export function createClientErrorAnswer(observe: ObserveUnrouted) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
    observe("-", tooLarge ? 431 : 400, tooLarge ? "payload_too_large" : "invalid_request");
    answerClientError(tooLarge, socket);
  };
}

function answerClientError(tooLarge: boolean, socket: Socket): void {
  const answer = tooLarge
    ? { code: "payload_too_large", message: "The request headers are too large." }
    : { code: "invalid_request", message: "The request is not valid HTTP." };
  const body = JSON.stringify({ error: answer });
  socket.end(
    `HTTP/1.1 ${tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request"}\r\n` +
      `content-type: application/json; charset=utf-8\r\n${ERROR_CODE_HEADER}: ${answer.code}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
