import { type IncomingMessage, ServerResponse } from "node:http";

/**
 * The HTTP/1.1 listener's responses (fastify's `http.ServerResponse` option, server.ts): an answer
 * given before the request body arrived in full closes the connection (it is sent with
 * `Connection: close`). That happens when a refusal is made from the headers or the first bytes:
 * an RPC envelope that announces more than the limit, an unknown compression. Kept alive, the
 * connection would have to carry the rest of the body, which nobody reads, before another request:
 * Node would read and drop up to the whole announced size, and a client still uploading (curl)
 * would wait for the end of its upload before it read the answer. The JSON routes' 413 (fastify's)
 * closes the same way.
 *
 * A subclass, not a per-request hook: wrapping writeHead in an onRequest hook cost about 5 µs of
 * the service's 120 µs per one-text request (`npm run bench`, paired, 5 of 5 rounds).
 */
export class ClosingUnreadResponse extends ServerResponse<IncomingMessage> {}

const writeHead = ServerResponse.prototype.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
ClosingUnreadResponse.prototype.writeHead = function (this: ServerResponse, ...args: unknown[]) {
  // Read when the head is written: Node then sends Connection: close and closes after the answer.
  if (announcesUnreadBody(this.req)) this.shouldKeepAlive = false;
  return writeHead.apply(this, args);
} as ServerResponse["writeHead"];

/**
 * Whether the request announced a body (Content-Length > 0 or Transfer-Encoding) that has not all
 * arrived. Only such requests: a GET answered within the event that parsed its head (the JWKS
 * route) is not "complete" yet either, and has nothing left to send.
 */
function announcesUnreadBody(request: IncomingMessage | undefined): boolean {
  if (!request || request.complete) return false;
  const headers = request.headers;
  return headers["transfer-encoding"] !== undefined || Number(headers["content-length"] ?? 0) > 0;
}
