import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNTRUSTED_ARRIVAL_MS } from "../../src/edge/http2-request-timeout.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// An audit (session 40): a keyless POST declaring 100 bytes and sending one every 2 s held its
// HTTP/1.1 connection for REQUEST_TIMEOUT_MS (300 s); HTTP/2 streams were cut after 10 s.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
}, 60_000);

afterAll(async () => {
  await server?.close();
});

/** An HTTP/1.1 POST whose headers promise 100 bytes and whose body trickles in, a byte every second; resolves when the server closes it. */
function trickle(path: string, headers: Record<string, string>): { closedAfterMs: Promise<number>; socket: net.Socket } {
  const url = new URL(server.httpUrl);
  const socket = net.connect(Number(url.port), url.hostname);
  socket.on("error", () => {});
  const started = Date.now();
  const head = [`POST ${path} HTTP/1.1`, `Host: ${url.host}`, "Content-Type: application/json", "Content-Length: 100", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  socket.write(`${head.join("\r\n")}\r\n\r\n{`);
  const drip = setInterval(() => socket.writable && socket.write(" "), 1_000);
  const closedAfterMs = new Promise<number>((resolve) => socket.once("close", () => {
    clearInterval(drip);
    resolve(Date.now() - started);
  }));
  return { closedAfterMs, socket };
}

describe("an HTTP/1.1 request with no live key whose body trickles in", () => {
  it(`is closed after ${UNTRUSTED_ARRIVAL_MS / 1000} s, not REQUEST_TIMEOUT_MS (300 s); one with a live key waits on`, async () => {
    const { key } = await server.createAccount("enterprise", 1_000);
    const keyless = trickle("/v1/moderate", {});
    const madeUp = trickle("/v1/moderate", { "X-API-Key": `${key}x` });
    const live = trickle("/v1/moderate", { "X-API-Key": key });
    for (const afterMs of await Promise.all([keyless.closedAfterMs, madeUp.closedAfterMs])) {
      expect(afterMs).toBeGreaterThanOrEqual(UNTRUSTED_ARRIVAL_MS - 500);
      expect(afterMs).toBeLessThan(UNTRUSTED_ARRIVAL_MS + 5_000);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(live.socket.destroyed).toBe(false);
    live.socket.destroy();
  }, UNTRUSTED_ARRIVAL_MS + 20_000);
});
