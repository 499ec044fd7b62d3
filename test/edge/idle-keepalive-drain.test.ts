import http from "node:http";
import fastify from "fastify";
import { expect, it } from "vitest";
import { trackForGracefulClose } from "../../src/edge/graceful-close.js";

// A keep-alive connection idle since well before the shutdown signal: its client may send its
// next request just after the signal. It was closed at once (idle over 250 ms), and that request
// was reset; now it gets 250 ms from the signal, and the request is answered, Connection: close.
it("answers a request sent just after the signal on a connection idle since well before it", async () => {
  const app = fastify();
  app.get("/ping", async () => ({ ok: true }));
  await app.listen({ port: 0, host: "127.0.0.1" });
  const close = trackForGracefulClose(app, 2_000);
  const { port } = app.server.address() as { port: number };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise<{ status: number; connection: string | undefined; socket: unknown }>((resolve, reject) => {
      const request = http.get({ host: "127.0.0.1", port, path: "/ping", agent }, (response) => {
        response.resume();
        response.on("end", () => resolve({ status: response.statusCode!, connection: response.headers.connection, socket: request.socket }));
      });
      request.on("error", reject);
    });
  try {
    const first = await get();
    await new Promise((resolve) => setTimeout(resolve, 600)); // idle well past 250 ms
    const closing = close();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const second = await get();
    expect(second.socket).toBe(first.socket); // the same connection, not a new one
    expect(second).toMatchObject({ status: 200, connection: "close" });
    await closing;
  } finally {
    agent.destroy();
  }
});
