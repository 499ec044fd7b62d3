import { type IncomingMessage, ServerResponse } from "node:http";
import { Http2ServerResponse, type ServerHttp2Stream, constants as http2Constants } from "node:http2";

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

/**
 * The HTTP/2 listener's responses (server.ts): once an answer given before the request body
 * arrived in full has been sent whole (END_STREAM), the stream is reset with NO_ERROR, which
 * tells the client to stop sending a body nobody reads (RFC 9113 section 8.1; a client keeps the
 * answer). Without it such a stream stayed open until the client reset it, which grpc-js and
 * connect-node never do: it held one of the connection's MAX_STREAMS_PER_CONNECTION slots for
 * good, and after 1,000 refused calls (413 payload_too_large, 503 of the held-bodies bound) the
 * next call on that channel waited for ever.
 */
export class ResettingUnreadHttp2Response extends Http2ServerResponse {
  override end(...args: unknown[]): this {
    const stream = this.stream;
    // Read before end(): the body was not read to its end and the client has not sent END_STREAM,
    // so it is still uploading. (A read body, the usual case, costs no look at nghttp2's state.)
    const uploading = !this.req.complete && stream !== undefined && !stream.endAfterHeaders && !stream.destroyed && stream.state?.remoteClose === 0;
    (Http2ServerResponse.prototype.end as (...a: unknown[]) => unknown).apply(this, args);
    if (uploading) resetOnceAnswered(stream);
    return this;
  }
}

/** First and longest wait between looks at whether the answer's END_STREAM has left. */
const RESET_POLL_FIRST_MS = 10;
const RESET_POLL_MAX_MS = 1_000;

/**
 * RST_STREAM(NO_ERROR) once the answer's END_STREAM is sent (nghttp2 says so in state.localClose),
 * never before: a reset sent while the answer (or gRPC's trailers) still waited in the session's
 * queue would go out first and cut it short. A client that reads slowly holds the answer back;
 * the looks go on, further apart, for as long as the stream lives (they stopped after 5 s, and a
 * client that granted window after 7 s kept all 1,000 of its refused streams open; the stream's
 * own REQUEST_TIMEOUT_MS still ends it).
 */
function resetOnceAnswered(stream: ServerHttp2Stream): void {
  let wait = RESET_POLL_FIRST_MS;
  const check = (): void => {
    if (stream.closed || stream.destroyed) return;
    if (stream.state?.localClose === 1) {
      stream.close(http2Constants.NGHTTP2_NO_ERROR);
      // Closed with NO_ERROR, Node waits for the request body to be read to its end before it
      // lets the stream go (and only then emits 'close', when the request is counted and
      // logged); nobody reads it, so it stayed half closed, counted nowhere. The reset is queued
      // in the session already: the stream itself can go now.
      stream.destroy();
      return;
    }
    setTimeout(check, wait).unref();
    wait = Math.min(RESET_POLL_MAX_MS, wait * 2);
  };
  setImmediate(check);
}
