import dns from "node:dns/promises";
import net from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { listenOnEveryAddress } from "../../src/edge/listen-on-every-address.js";

// The h2c server is made by a serverFactory, for which fastify binds only the first address of a
// host name; with HOST=localhost resolving to 127.0.0.1 and ::1, gRPC answered on one of them.

afterEach(() => vi.restoreAllMocks());

function greetingFrom(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host);
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
}

describe("listenOnEveryAddress", () => {
  it("serves every address of a host name on one port, through one server, skipping an address it cannot bind", async () => {
    // 127.0.0.2 is loopback on Linux too; 192.0.2.1 (TEST-NET-1) is no address of this machine.
    vi.spyOn(dns, "lookup").mockResolvedValue([{ address: "127.0.0.1", family: 4 }, { address: "127.0.0.2", family: 4 }, { address: "192.0.2.1", family: 4 }] as never);
    const server = net.createServer((socket) => socket.end("hello"));
    const listeners = await listenOnEveryAddress(server, { port: 0, host: "two-addresses.test" });
    try {
      expect(listeners.map((listener) => (listener.address() as net.AddressInfo).address)).toEqual(["127.0.0.1", "127.0.0.2"]);
      const port = (listeners[0]!.address() as net.AddressInfo).port;
      expect(await greetingFrom("127.0.0.1", port)).toBe("hello");
      expect(await greetingFrom("127.0.0.2", port)).toBe("hello");
    } finally {
      for (const listener of listeners) listener.close();
    }
  });

  it("fails as listen does when the first address cannot be bound", async () => {
    const server = net.createServer();
    await expect(listenOnEveryAddress(server, { port: 0, host: "192.0.2.1" })).rejects.toMatchObject({ code: "EADDRNOTAVAIL" });
  });
});
