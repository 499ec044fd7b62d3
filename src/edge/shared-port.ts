import net from "node:net";
import type { Server, Socket } from "node:net";
import type { ConnectionGuard } from "./connection-limits.js";

/**
 * One TCP port for both protocols (PORT == GRPC_PORT): every HTTP/2 connection without TLS
 * starts with the fixed preface "PRI * HTTP/2.0", which no HTTP/1.1 request line does, so the
 * first bytes decide which server gets the connection. The bytes read to decide are put back
 * before the chosen server sees the socket.
 *
 * Until then neither server holds the socket, so neither server's timeouts apply: a connection
 * that sends nothing is closed after `firstByteTimeoutMs` (the HTTP/1.1 listener's headersTimeout;
 * without it, silent connections were held for as long as their clients liked), and every
 * undecided one when the listener closes. The chosen server's own timers start when it is handed
 * the socket, so a client slow to start and then slow with its headers has up to twice that.
 */
export function listenOnSharedPort(options: { port: number; host: string; http1: Server; h2c: Server; firstByteTimeoutMs: number; guard?: ConnectionGuard }): Promise<Server> {
  const undecided = new Set<Socket>();
  const front = net.createServer((socket) => {
    // Counted here, undecided ones too: silent connections are what the bound is for.
    if (options.guard && !options.guard.admit(socket)) return;
    undecided.add(socket);
    const silent = setTimeout(() => socket.destroy(), options.firstByteTimeoutMs);
    const decided = () => {
      clearTimeout(silent);
      undecided.delete(socket);
    };
    socket.once("close", decided);
    // The decision needs four bytes; a client may send fewer first ("PR" and then the rest).
    let first: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      first = first.length === 0 ? chunk : Buffer.concat([first, chunk]);
      if (first.length < 4) return;
      socket.off("data", onData);
      decided();
      socket.off("close", decided);
      socket.pause();
      socket.unshift(first);
      if (first.subarray(0, 4).toString("latin1") === "PRI ") {
        // The HTTP/2 session reads what is already buffered itself; resuming would drop it.
        options.h2c.emit("connection", socket);
      } else {
        options.http1.emit("connection", socket);
        socket.resume();
      }
    };
    socket.on("data", onData);
    socket.on("error", () => socket.destroy());
  });
  const close = front.close.bind(front);
  // close() alone waits for every connection it accepted; the undecided ones belong to no server that would end them.
  front.close = (callback?: (error?: Error) => void) => {
    for (const socket of undecided) socket.destroy();
    return close(callback);
  };
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
