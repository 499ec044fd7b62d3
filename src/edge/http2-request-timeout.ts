import { type Http2Server, type Http2ServerRequest, type Http2ServerResponse, constants as http2Constants } from "node:http2";
import { markTimedOut } from "../observability/request-hooks.js";
import { carriesNoKey, forgetArrival, onUntrustedArrival } from "../base/body-arrival.js";

/**
 * How long the body of an HTTP/2 request may take to arrive when it has no live API key behind
 * it: no key header, a key that is not live, or a public method (health), whose body is at most
 * 64 KiB and sent at once by any real client.
 */
export const UNTRUSTED_ARRIVAL_MS = 10_000;

/**
 * REQUEST_TIMEOUT_MS on the HTTP/2 listener, whose streams Node bounds by no such time: a stream
 * whose request body has not arrived in full within it is reset (CANCEL) and counted as 408
 * request_timeout. Without it a client sending a byte now and then held its stream, and its share
 * of HELD_BODIES_MAX_MB, for as long as it liked. A request whose body has arrived is never cut,
 * however long its answer takes (a guard-model call, a Health.Watch stream). A request without
 * a key header gets UNTRUSTED_ARRIVAL_MS from the start; one whose key the route then finds not
 * live, or that calls a public method, gets it once the route says so (base/body-arrival.ts).
 */
export function limitHttp2RequestTime(server: Http2Server, timeoutMs: number, options: { streamsBothWays: (path: string) => boolean }): void {
  // Before the app's own listener: a route that runs within it (no hook waits) may already call
  // limitBodyArrival, which finds nothing to shorten unless the timer is set first.
  server.prependListener("request", (request: Http2ServerRequest, response: Http2ServerResponse) => {
    const stream = request.stream;
    // Headers with END_STREAM: no body to wait for. A method that streams both ways (gRPC
    // reflection) keeps its request open by design: it was cut, answered, at the limit.
    if (stream.endAfterHeaders || options.streamsBothWays(request.url)) return;
    const startedAt = Date.now();
    const cut = (): void => {
      if (stream.closed || stream.destroyed || request.complete || stream.state?.remoteClose === 1) return;
      // An answer already under way (an early 413 the client does not read) keeps its own status.
      if (!response.headersSent) markTimedOut(response);
      stream.close(http2Constants.NGHTTP2_CANCEL);
    };
    // Such a stream held its place under HTTP2_MAX_STREAMS for the whole REQUEST_TIMEOUT_MS
    // (300 s), from anyone: a made-up key header was enough, so the key's liveness decides.
    const keyless = carriesNoKey(request.headers);
    const limitMs = keyless ? Math.min(timeoutMs, UNTRUSTED_ARRIVAL_MS) : timeoutMs;
    let timer = setTimeout(cut, limitMs);
    const clear = (): void => {
      clearTimeout(timer);
      forgetArrival(request);
    };
    if (limitMs > UNTRUSTED_ARRIVAL_MS) {
      onUntrustedArrival(request, () => {
        clearTimeout(timer);
        timer = setTimeout(cut, Math.max(0, startedAt + UNTRUSTED_ARRIVAL_MS - Date.now()));
      });
    }
    stream.once("close", clear);
    request.once("end", clear);
  });
}
