import { type Http2Server, type Http2ServerRequest, type Http2ServerResponse, constants as http2Constants } from "node:http2";
import { markTimedOut } from "../observability/request-hooks.js";

/**
 * REQUEST_TIMEOUT_MS on the HTTP/2 listener, whose streams Node bounds by no such time: a stream
 * whose request body has not arrived in full within it is reset (CANCEL) and counted as 408
 * request_timeout. Without it a client sending a byte now and then held its stream, and its share
 * of HELD_BODIES_MAX_MB, for as long as it liked. A request whose body has arrived is never cut,
 * however long its answer takes (a guard-model call, a Health.Watch stream).
 */
export function limitHttp2RequestTime(server: Http2Server, timeoutMs: number): void {
  server.on("request", (request: Http2ServerRequest, response: Http2ServerResponse) => {
    const stream = request.stream;
    // Headers with END_STREAM: no body to wait for.
    if (stream.endAfterHeaders) return;
    const timer = setTimeout(() => {
      if (stream.closed || stream.destroyed || request.complete || stream.state?.remoteClose === 1) return;
      markTimedOut(response);
      stream.close(http2Constants.NGHTTP2_CANCEL);
    }, timeoutMs);
    const clear = (): void => clearTimeout(timer);
    stream.once("close", clear);
    request.once("end", clear);
  });
}
