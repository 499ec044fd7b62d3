import { type Http2Server, type Http2ServerRequest, type Http2ServerResponse, constants as http2Constants } from "node:http2";
import { markTimedOut } from "../observability/request-hooks.js";

/** How long the body of a request without an API key may take to arrive over HTTP/2. */
export const KEYLESS_ARRIVAL_MS = 10_000;

/**
 * REQUEST_TIMEOUT_MS on the HTTP/2 listener, whose streams Node bounds by no such time: a stream
 * whose request body has not arrived in full within it is reset (CANCEL) and counted as 408
 * request_timeout. Without it a client sending a byte now and then held its stream, and its share
 * of HELD_BODIES_MAX_MB, for as long as it liked. A request whose body has arrived is never cut,
 * however long its answer takes (a guard-model call, a Health.Watch stream). A request without
 * an API key gets KEYLESS_ARRIVAL_MS at most.
 */
export function limitHttp2RequestTime(server: Http2Server, timeoutMs: number, options: { streamsBothWays: (path: string) => boolean }): void {
  server.on("request", (request: Http2ServerRequest, response: Http2ServerResponse) => {
    const stream = request.stream;
    // Headers with END_STREAM: no body to wait for. A method that streams both ways (gRPC
    // reflection) keeps its request open by design: it was cut, answered, at the limit.
    if (stream.endAfterHeaders || options.streamsBothWays(request.url)) return;
    // A request without a key is answered at once unless its method is public (health), whose
    // body is at most 64 KiB and sent at once by any real client: such a stream left unfinished
    // held its place under HTTP2_MAX_STREAMS for the whole REQUEST_TIMEOUT_MS (300 s), from anyone.
    const keyless = request.headers["x-api-key"] === undefined && request.headers.authorization === undefined;
    const limitMs = keyless ? Math.min(timeoutMs, KEYLESS_ARRIVAL_MS) : timeoutMs;
    const timer = setTimeout(() => {
      if (stream.closed || stream.destroyed || request.complete || stream.state?.remoteClose === 1) return;
      // An answer already under way (an early 413 the client does not read) keeps its own status.
      if (!response.headersSent) markTimedOut(response);
      stream.close(http2Constants.NGHTTP2_CANCEL);
    }, limitMs);
    const clear = (): void => clearTimeout(timer);
    stream.once("close", clear);
    request.once("end", clear);
  });
}
