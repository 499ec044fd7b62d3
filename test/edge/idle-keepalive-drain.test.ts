import http from "node:http";
import net from "node:net";
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

// Found by an audit (session 52): an idle connection whose client never closes its side was
// ended (our FIN) and then held, half open, until the grace ran out (8.3 s against 0.5 s).
it("does not wait out the grace for an idle connection whose client ignores our FIN", async () => {
  const app = fastify();
  await app.listen({ port: 0, host: "127.0.0.1" });
  const close = trackForGracefulClose(app, 5_000);
  const { port } = app.server.address() as { port: number };
  // allowHalfOpen: this client reads our FIN and keeps its own side open, sending nothing.
  const holder = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true });
  await new Promise((resolve) => holder.once("connect", resolve));
  holder.on("error", () => undefined);
  try {
    const started = Date.now();
    await close();
    // The socket is gone on our side (the client learns it only when it next writes).
    expect(Date.now() - started).toBeLessThan(2_000);
  } finally {
    holder.destroy();
  }
});
