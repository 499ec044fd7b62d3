import { type Http2Server, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Stream, constants as http2Constants } from "node:http2";

/**
 * How long a finished answer may wait for a client that does not take it (its HTTP/2 flow-control
 * window shut) before the stream is reset (CANCEL). Found by an audit: 33 connections of 1,000
 * `GET /healthz` streams, each with a window of 0, answered and never read, held every place
 * under HTTP2_MAX_STREAMS (32,000) for as long as the client stayed connected, and every other
 * caller's stream was refused; now they are given back 10 to 12 s after, as long as a keyless
 * body may take to arrive (UNTRUSTED_ARRIVAL_MS). A client that reads takes this service's
 * answers (tens of kilobytes at most) in far less.
 */
const UNREAD_ANSWER_MS = 10_000;

/**
 * Resets each stream whose answer was ended on our side (`response.end()`) but has not gone out
 * within `waitMs`. Looked for by a sweep, not per answer: a response whose data cannot be sent
 * emits no event to say it was ended ("finish" waits for the data to go), and how much of it
 * went out is not seen either (Node hands it to nghttp2 at once), so a client reading very slowly
 * is cut too: one taking under about 6 KB/s of a 64 KB answer.
 */
export function resetUnreadAnswers(server: Http2Server, waitMs = UNREAD_ANSWER_MS): void {
  /** Open streams, and when their answer was first seen ended (0: not yet). */
  const open = new Map<ServerHttp2Stream, { response: Http2ServerResponse; endedAt: number }>();
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = (): void => {
    const now = Date.now();
    for (const [stream, entry] of open) {
      if (!entry.response.writableEnded) continue;
      if (entry.endedAt === 0) entry.endedAt = now;
      else if (now - entry.endedAt >= waitMs && !stream.closed && !stream.destroyed) stream.close(http2Constants.NGHTTP2_CANCEL);
    }
    if (open.size === 0) {
      clearInterval(sweeper);
      sweeper = undefined;
    }
  };
  server.on("request", (request: Http2ServerRequest, response: Http2ServerResponse) => {
    const stream = request.stream;
    if (stream.closed || stream.destroyed) return;
    open.set(stream, { response, endedAt: 0 });
    stream.once("close", () => open.delete(stream));
    if (!sweeper) {
      // A fifth of the wait: an answer is reset between waitMs and 1.2 waitMs after it ended.
      sweeper = setInterval(sweep, Math.max(10, Math.floor(waitMs / 5)));
      // A process stopping need not wait for it.
      sweeper.unref();
    }
  });
}
