import { type Http2Server, type Http2ServerRequest, type Http2ServerResponse, constants as http2Constants } from "node:http2";
import { markTimedOut } from "../observability/request-hooks.js";

/**
 * REQUEST_TIMEOUT_MS on the HTTP/2 listener, whose streams Node bounds by no such time: a stream
 * whose request body has not arrived in full within it is reset (CANCEL) and counted as 408
 * request_timeout. Without it a client sending a byte now and then held its stream, and its share
 * of HELD_BODIES_MAX_MB, for as long as it liked. A request whose body has arrived is never cut,
 * however long its answer takes (a guard-model call, a Health.Watch stream).
 */
export function limitHttp2RequestTime(server: Http2Server, timeoutMs: number, options: { streamsBothWays: (path: string) => boolean }): void {
  server.on("request", (request: Http2ServerRequest, response: Http2ServerResponse) => {
    const stream = request.stream;
    // Headers with END_STREAM: no body to wait for. A method that streams both ways (gRPC
    // reflection) keeps its request open by design: it was cut, answered, at the limit.
    if (stream.endAfterHeaders || options.streamsBothWays(request.url)) return;
    const timer = setTimeout(() => {
      if (stream.closed || stream.destroyed || request.complete || stream.state?.remoteClose === 1) return;
      // An answer already under way (an early 413 the client does not read) keeps its own status.
      if (!response.headersSent) markTimedOut(response);
      stream.close(http2Constants.NGHTTP2_CANCEL);
    }, timeoutMs);
    const clear = (): void => clearTimeout(timer);
    stream.once("close", clear);
    request.once("end", clear);
  });
}
