import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../bench/support/spawn-service.js";
import { callModerate, PROTOCOLS } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// PORT == GRPC_PORT: one listener tells HTTP/2 (h2c preface) from HTTP/1.1 by the first bytes.
let server: TestServer;
let key: string;
beforeAll(async () => {
  const port = String(await freePort());
  server = await startTestServer({ env: { PORT: port, GRPC_PORT: port, REQUEST_TIMEOUT_MS: "1500" } });
  ({ key } = await server.createAccount("enterprise", 1_000_000));
});
afterAll(() => server?.close());

describe("one port for every protocol", () => {
  it("reports the same URL for both listeners", () => {
    expect(server.httpUrl).toBe(server.grpcUrl);
  });

  it.each(PROTOCOLS)("serves %s on it, errors and successes alike", async (protocol) => {
    const body = { input: [{ type: "text", text: "see you at lunch" }] };
    expect(await callModerate(protocol, server, body)).toMatchObject({ ok: false, code: "missing_api_key" });
    const outcome = await callModerate(protocol, server, body, key);
    expect(outcome.ok).toBe(true);
    if (outcome.ok) expect(outcome.body.results).toHaveLength(1);
  });

  it("answers plain HTTP/1.1 routes too", async () => {
    const response = await fetch(`${server.httpUrl}/healthz`);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("holds HTTP/1.1 callers to REQUEST_TIMEOUT_MS too (a server handed its connections checked none)", async () => {
    const url = new URL(server.httpUrl);
    const answer = await new Promise<string>((resolve) => {
      let got = "";
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "));
      const drip = setInterval(() => socket.writable && socket.write("a"), 100);
      socket.on("data", (chunk) => (got += chunk.toString("latin1")));
      socket.on("error", () => undefined);
      socket.on("close", () => {
        clearInterval(drip);
        resolve(got);
      });
      setTimeout(() => socket.destroy(), 15_000);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it("closes a connection that never sends a byte (before the first byte neither server's timeouts apply)", async () => {
    const url = new URL(server.httpUrl);
    const started = Date.now();
    const closedAfter = await new Promise<number>((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname);
      socket.on("error", () => undefined);
      socket.on("close", () => resolve(Date.now() - started));
      setTimeout(() => socket.destroy(), 15_000);
    });
    // headersTimeout is REQUEST_TIMEOUT_MS (1.5 s) here; it was held until the client gave up.
    expect(closedAfter).toBeLessThan(10_000);
  });

  it("waits for four bytes to decide: an HTTP/2 preface sent in pieces still reaches the HTTP/2 server", async () => {
    const url = new URL(server.httpUrl);
    const emptySettings = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
    const first = await new Promise<Buffer>((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write("PR");
        setTimeout(() => socket.write(Buffer.concat([Buffer.from("I * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1"), emptySettings])), 100);
      });
      socket.once("data", (chunk: Buffer) => {
        socket.destroy();
        resolve(chunk);
      });
      socket.on("error", () => undefined);
    });
    // The server's SETTINGS frame (type 4), not "HTTP/1.1 400 Bad Request" from the HTTP/1.1 server.
    expect(first.subarray(0, 4).toString("latin1")).not.toBe("HTTP");
    expect(first[3]).toBe(4);
  });
});
