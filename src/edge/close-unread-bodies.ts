import type { ServerResponse } from "node:http";
import type { FastifyInstance } from "fastify";

/**
 * An HTTP/1.1 answer given before the request body arrived in full closes the connection (it is
 * sent with `Connection: close`). That happens when a refusal is made from the headers or the
 * first bytes: an RPC envelope that announces more than the limit, an unknown compression. Kept
 * alive, the connection would have to carry the rest of the body, which nobody reads, before
 * another request: Node would read and drop up to the whole announced size, and a client still
 * uploading (curl) would wait for the end of its upload before it read the answer. The JSON routes'
 * 413 (fastify's) closes the same way.
 */
export function registerCloseUnreadBodies(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    // Only requests that announce a body: a GET answered within the event that parsed its head
    // (the JWKS route) is not "complete" yet either, and has nothing left to send.
    const announcesBody = request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0;
    if (request.raw.httpVersionMajor === 1 && announcesBody) {
      const raw = reply.raw as ServerResponse;
      const writeHead = raw.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
      raw.writeHead = function (this: ServerResponse, ...args: unknown[]) {
        // Read when the head is written: Node then sends Connection: close and closes after the answer.
        if (!request.raw.complete) this.shouldKeepAlive = false;
        return writeHead.apply(this, args);
      } as ServerResponse["writeHead"];
    }
    done();
  });
}
