import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import { createContextValues } from "@connectrpc/connect";
import type { AccountStore } from "../accounts/account-store.js";
import { incomingHeaderReader } from "../http/plain-headers.js";
import { createApiKeyCheck } from "../interceptors/auth.js";

/**
 * `Expect: 100-continue` on HTTP/1.1: Node answered `100 Continue` at once, key or not, inviting
 * a caller without a live key to upload up to 70 MB that the route then read and dropped. Now the
 * invitation goes only to a live key's call; any other call reaches its route without one, which
 * answers it without waiting for a body the client holds back (json-request.ts), or reads what
 * the client sends after its own wait (RPC routes: read, never held or decoded).
 */
export function continueOnlyForLiveKeys(server: HttpServer, accounts: AccountStore): void {
  const hasLiveKey = createApiKeyCheck(accounts);
  server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => {
    const proceed = (live: boolean) => {
      if (live) response.writeContinue();
      server.emit("request", request, response);
    };
    const live = hasLiveKey(incomingHeaderReader(request.headers), createContextValues());
    if (typeof live === "boolean") proceed(live);
    else live.then(proceed, () => proceed(false));
  });
}

/**
 * Any other `Expect` value on HTTP/1.1 (an expectation this server does not know): Node answered a
 * bare 417, with no error body, code or signature. RFC 9110 (section 10.1.1) lets a server answer
 * 417 or serve the request as if it had not asked; it is served, so the caller gets the route's own
 * answer (authenticated, signed, with its stable error code where there is one).
 */
export function serveUnknownExpectations(server: HttpServer): void {
  server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => server.emit("request", request, response));
}
