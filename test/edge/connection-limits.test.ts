import dns from "node:dns/promises";
import http2 from "node:http2";
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort } from "../../bench/support/spawn-service.js";
import { readConfig } from "../../src/config/config.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { waitUntil } from "../support/poll.js";

// MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS: without them silent connections from one
// client filled the process's open-file limit, and every other caller was refused until the
// connections timed out (60-92 s). Loopback is 127.0.0.0/8 on Linux, so clients bind 127.0.0.x
// to be several addresses.

const open: net.Socket[] = [];
const sessions: http2.ClientHttp2Session[] = [];
afterEach(() => {
  for (const socket of open.splice(0)) socket.destroy();
  for (const session of sessions.splice(0)) session.destroy();
});

/** A connection from `localAddress` that sends nothing: resolves once connected. */
function silentConnection(url: string, localAddress: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress }, () => resolve(socket));
    socket.on("error", reject);
    open.push(socket);
  });
}

/** /healthz over a fresh HTTP/1.1 connection from `localAddress`: its status, or "closed" when the connection was closed unanswered. */
function healthz(url: string, localAddress: string): Promise<number | "closed"> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress }, () => socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
    });
    socket.on("error", () => {});
    socket.on("close", () => resolve(answer.startsWith("HTTP/1.1 ") ? Number(answer.slice(9, 12)) : "closed"));
  });
}

async function refusals(server: TestServer, reason: string): Promise<number> {
  const line = (await server.ctx.metrics.render()).split("\n").find((row) => row.startsWith(`moderation_connections_refused_total{reason="${reason}"}`));
  return line === undefined ? 0 : Number(line.split(" ")[1]);
}

describe("connection limits, separate listeners", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { MAX_CONNECTIONS: "9", MAX_CONNECTIONS_PER_ADDRESS: "4" } });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("closes one address's connection past its share over both protocols, serves other addresses, and serves it again once one closes", async () => {
    // Two silent HTTP/1.1 connections and two HTTP/2 ones: the share is counted over both listeners.
    const held = [await silentConnection(server.httpUrl, "127.0.0.2"), await silentConnection(server.httpUrl, "127.0.0.2")];
    for (let i = 0; i < 2; i++) {
      const session = http2.connect(server.grpcUrl, { localAddress: "127.0.0.2" } as http2.SecureClientSessionOptions);
      session.on("error", () => {});
      sessions.push(session);
      await new Promise((resolve) => session.once("connect", resolve));
    }
    await waitUntil(() => server.ctx.metrics.render().then((text) => text.includes("moderation_open_connections 4")), "4 open connections", 5_000);
    const before = await refusals(server, "per_address");
    expect(await healthz(server.httpUrl, "127.0.0.2")).toBe("closed");
    expect(await refusals(server, "per_address")).toBe(before + 1);
    expect(await healthz(server.httpUrl, "127.0.0.3")).toBe(200);
    held[0]!.destroy();
    await waitUntil(() => server.ctx.metrics.render().then((text) => text.includes("moderation_open_connections 3")), "3 open connections", 5_000);
    expect(await healthz(server.httpUrl, "127.0.0.2")).toBe(200);
  });

  it("closes any address's connection once MAX_CONNECTIONS are open", async () => {
    for (const address of ["127.0.0.4", "127.0.0.5"]) for (let i = 0; i < 4; i++) await silentConnection(server.httpUrl, address);
    await silentConnection(server.grpcUrl, "127.0.0.6");
    await waitUntil(() => server.ctx.metrics.render().then((text) => text.includes("moderation_open_connections 9")), "9 open connections", 5_000);
    const before = await refusals(server, "total");
    expect(await healthz(server.httpUrl, "127.0.0.7")).toBe("closed");
    expect(await refusals(server, "total")).toBe(before + 1);
    for (const socket of open.splice(0)) socket.destroy();
    await waitUntil(() => server.ctx.metrics.render().then((text) => text.includes("moderation_open_connections 0")), "0 open connections", 5_000);
    expect(await healthz(server.httpUrl, "127.0.0.7")).toBe(200);
  });
});

describe("connection limits, a HOST name with two addresses", () => {
  let server: TestServer;
  beforeAll(async () => {
    // As HOST=localhost resolving to 127.0.0.1 and ::1: fastify's own listen bound the second
    // address to a server of its own, which no limit (nor graceful close) saw.
    vi.spyOn(dns, "lookup").mockResolvedValue([{ address: "127.0.0.1", family: 4 }, { address: "127.0.0.10", family: 4 }] as never);
    server = await startTestServer({ env: { HOST: "two-addresses.test", MAX_CONNECTIONS: "50", MAX_CONNECTIONS_PER_ADDRESS: "2" } });
    vi.restoreAllMocks();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("counts connections to the second address's HTTP/1.1 listener, which the one server answers", async () => {
    const second = server.httpUrl.replace("127.0.0.1", "127.0.0.10");
    expect(await healthz(second, "127.0.0.11")).toBe(200);
    for (let i = 0; i < 2; i++) await silentConnection(second, "127.0.0.12");
    await waitUntil(() => server.ctx.metrics.render().then((text) => text.includes("moderation_open_connections 2")), "2 open connections", 5_000);
    expect(await healthz(second, "127.0.0.12")).toBe("closed");
    expect(await healthz(server.httpUrl, "127.0.0.12")).toBe("closed");
  });
});

describe("connection limits, one shared port", () => {
  let server: TestServer;
  beforeAll(async () => {
    const port = String(await freePort());
    server = await startTestServer({ env: { PORT: port, GRPC_PORT: port, MAX_CONNECTIONS: "50", MAX_CONNECTIONS_PER_ADDRESS: "3" } });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("counts connections that have sent nothing yet (the port has not decided their protocol)", async () => {
    for (let i = 0; i < 3; i++) await silentConnection(server.httpUrl, "127.0.0.8");
    await waitUntil(() => server.ctx.metrics.render().then((text) => text.includes("moderation_open_connections 3")), "3 open connections", 5_000);
    expect(await healthz(server.httpUrl, "127.0.0.8")).toBe("closed");
    expect(await healthz(server.httpUrl, "127.0.0.9")).toBe(200);
  });
});

describe("MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS settings", () => {
  it("default to four fifths of the open-file limit and a quarter of that per address; behind a proxy the peer is the proxy, so its share is the whole", () => {
    const direct = readConfig({ DATA_DIR: "/tmp/moderation-config-test" }).connectionLimits;
    expect(direct.total).toBeGreaterThanOrEqual(64);
    expect(direct.perAddress).toBe(Math.floor(direct.total / 4));
    const proxied = readConfig({ DATA_DIR: "/tmp/moderation-config-test", TRUST_PROXY: "1" }).connectionLimits;
    expect(proxied.perAddress).toBe(proxied.total);
    // TRUST_PROXY=0 trusts no hop: the peer is the client.
    expect(readConfig({ DATA_DIR: "/tmp/moderation-config-test", TRUST_PROXY: "0" }).connectionLimits.perAddress).toBe(direct.perAddress);
    expect(readConfig({ MAX_CONNECTIONS: "100", MAX_CONNECTIONS_PER_ADDRESS: "7" }).connectionLimits).toEqual({ total: 100, perAddress: 7 });
    expect(() => readConfig({ MAX_CONNECTIONS: "0" })).toThrow(/MAX_CONNECTIONS must be a whole number/);
    expect(() => readConfig({ MAX_CONNECTIONS_PER_ADDRESS: "-1" })).toThrow(/MAX_CONNECTIONS_PER_ADDRESS/);
  });
});
