import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { carriesNoKey, forgetArrival, onUntrustedArrival } from "../base/body-arrival.js";
import { markTimedOut } from "../observability/request-hooks.js";
import { UNTRUSTED_ARRIVAL_MS } from "./http2-request-timeout.js";

/**
 * The HTTP/1.1 listener's share of what http2-request-timeout.ts does for HTTP/2: a request with
 * a body and no live API key behind it (no key header, or one the route finds not live) has
 * UNTRUSTED_ARRIVAL_MS for its body to arrive, then its connection is closed (counted as 408
 * request_timeout). Node's requestTimeout (REQUEST_TIMEOUT_MS, 300 s) bounds the rest: a keyless
 * caller sending one byte every 2 s had held its connection for those 5 minutes (an audit,
 * session 40). A body that has arrived is never cut, however long its answer takes.
 */
export function limitHttp1BodyArrival(server: Server): void {
  // Before the app's own listener, so a route that finds the key not live can already shorten it.
  server.prependListener("request", (request: IncomingMessage, response: ServerResponse) => {
    if (!hasBody(request)) return;
    const startedAt = Date.now();
    const cut = (): void => {
      if (request.complete || request.socket.destroyed) return;
      if (!response.headersSent) markTimedOut(response);
      request.socket.destroy();
    };
    let timer: NodeJS.Timeout | undefined;
    const keyless = carriesNoKey(request.headers);
    if (keyless) timer = setTimeout(cut, UNTRUSTED_ARRIVAL_MS);
    else {
      onUntrustedArrival(request, () => {
        timer = setTimeout(cut, Math.max(0, startedAt + UNTRUSTED_ARRIVAL_MS - Date.now()));
      });
    }
    const clear = (): void => {
      clearTimeout(timer);
      forgetArrival(request);
    };
    request.once("end", clear);
    request.once("close", clear);
  });
}

/** Whether a body is to come: a length over 0, or a chunked one. */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers["content-length"];
  if (length !== undefined) return Number(length) > 0;
  return request.headers["transfer-encoding"] !== undefined;
}
