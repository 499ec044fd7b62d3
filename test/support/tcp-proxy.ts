import net from "node:net";

/**
 * A TCP proxy in front of a real server (PostgreSQL in the fault tests) that the test can make
 * misbehave the way networks do:
 * - stall(): stop forwarding in both directions, connections stay open (a silent database,
 *   a partition); new connections are accepted and then hear nothing. resume() lets the held
 *   bytes through, as TCP does when a partition heals.
 * - cut(): reset every connection and refuse new ones (the database host is gone); restore()
 *   listens again on the same port.
 */
export interface TcpProxy {
  port: number;
  stall(): void;
  resume(): void;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
  /** Connections currently open through the proxy. */
  openConnections(): number;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  type Pair = { client: net.Socket; upstream: net.Socket; held: Array<[net.Socket, Buffer]> };
  const pairs = new Set<Pair>();
  let stalled = false;

  const onConnection = (client: net.Socket) => {
    const upstream = net.connect(target.port, target.host);
    const pair: Pair = { client, upstream, held: [] };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    // Bytes are read either way; while stalled they are held back instead of forwarded.
    const forward = (to: net.Socket) => (chunk: Buffer) => (stalled ? pair.held.push([to, chunk]) : to.write(chunk));
    client.on("data", forward(upstream));
    upstream.on("data", forward(client));
  };

  let server = net.createServer(onConnection);
  await listen(server, 0);
  const port = (server.address() as net.AddressInfo).port;

  return {
    port,
    stall() {
      stalled = true;
    },
    resume() {
      stalled = false;
      for (const pair of pairs) {
        for (const [to, chunk] of pair.held.splice(0)) to.write(chunk);
      }
    },
    async cut() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const { client, upstream } of pairs) {
        client.resetAndDestroy();
        upstream.destroy();
      }
      pairs.clear();
      await closed;
    },
    async restore() {
      stalled = false;
      server = net.createServer(onConnection);
      await listen(server, port);
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    openConnections: () => pairs.size,
  };
}

function listen(server: net.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
}
