import dns from "node:dns/promises";
import net from "node:net";

/**
 * Listens on every address of `host` and hands each connection to `server`, which listens on
 * nothing itself. A name can have several addresses (localhost: 127.0.0.1 and ::1); fastify binds
 * them all for servers it makes, but not for one a serverFactory made, as the h2c server is
 * (server.ts), so gRPC was served on one of them only; and for a server it makes it binds the
 * second address to a server of its own, without the wiring the first has, so the HTTP/1.1 server
 * listens through this too. A further address that cannot be bound
 * (IPv6 turned off) is skipped, as fastify skips it; the first must bind.
 */
export async function listenOnEveryAddress(server: net.Server, options: { port: number; host: string }): Promise<net.Server[]> {
  const addresses = net.isIP(options.host) ? [options.host] : [...new Set((await dns.lookup(options.host, { all: true })).map((entry) => entry.address))];
  const [first, ...others] = addresses;
  const listeners = [await listen(server, first!, options.port)];
  const port = (listeners[0]!.address() as net.AddressInfo).port;
  for (const address of others) {
    const listener = await listen(server, address, port).catch(() => undefined);
    if (listener) listeners.push(listener);
  }
  return listeners;
}

function listen(server: net.Server, host: string, port: number): Promise<net.Server> {
  const front = net.createServer((socket) => server.emit("connection", socket));
  return new Promise((resolve, reject) => {
    front.once("error", reject);
    front.listen(port, host, () => {
      front.off("error", reject);
      resolve(front);
    });
  });
}
