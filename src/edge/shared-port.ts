import net from "node:net";
import type { Server } from "node:net";

/**
 * One TCP port for both protocols (PORT == GRPC_PORT): every HTTP/2 connection without TLS
 * starts with the fixed preface "PRI * HTTP/2.0", which no HTTP/1.1 request line does, so the
 * first bytes decide which server gets the connection. The bytes read to decide are put back
 * before the chosen server sees the socket.
 */
export function listenOnSharedPort(options: { port: number; host: string; http1: Server; h2c: Server }): Promise<Server> {
  const front = net.createServer((socket) => {
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      socket.unshift(chunk);
      if (chunk.subarray(0, 4).toString("latin1") === "PRI ") {
        // The HTTP/2 session reads what is already buffered itself; resuming would drop it.
        options.h2c.emit("connection", socket);
      } else {
        options.http1.emit("connection", socket);
        socket.resume();
      }
    });
    socket.on("error", () => socket.destroy());
  });
  return new Promise((resolve, reject) => {
    front.once("error", reject);
    front.listen(options.port, options.host, () => {
      front.off("error", reject);
      // Node's HTTP/1.1 server starts tracking its connections (headersTimeout, requestTimeout,
      // closing idle keep-alive connections on shutdown) when it emits 'listening', which a server
      // that never listens itself does not: here it was handed connections and checked none.
      options.http1.emit("listening");
      resolve(front);
    });
  });
}
