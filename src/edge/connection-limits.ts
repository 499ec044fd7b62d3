import type { Server, Socket } from "node:net";
import type { ConnectionLimits } from "../config/config.js";
import { createPeerTally, type PeerRefusal } from "./peer-tally.js";

export interface ConnectionGuard {
  /** Counts `socket` in and returns true, or destroys it and returns false when a limit is reached. */
  admit(socket: Socket): boolean;
  /** Connections counted now (all, and from one address). */
  open(address?: string): number;
}

/**
 * Bounds the connections the process holds, in all and per peer address. Without a bound, silent
 * connections from one client (each costs a file descriptor until the 60-92 s timeouts close it)
 * reached the process's open-file limit, and then every new caller was refused and the process
 * could open nothing else (its database, its providers): at a limit of 1,024, 965 of them did
 * that (docs/security.md). The total stays below the open-file limit, so the process keeps
 * descriptors of its own; the per-address bound keeps one address from taking the total.
 *
 * A refused connection is closed before any byte is read: there is no request yet to answer.
 * Behind a proxy every connection comes from the proxy's address, so the per-address bound is
 * then the total unless set (config.ts).
 */
export function createConnectionGuard(limits: ConnectionLimits, onRefused: (reason: PeerRefusal) => void): ConnectionGuard {
  const tally = createPeerTally(limits);
  return {
    open: (address) => tally.open(address),
    admit(socket) {
      const reason = tally.refusal(socket.remoteAddress);
      if (reason) {
        onRefused(reason);
        socket.destroy();
        return false;
      }
      socket.once("close", tally.take(socket.remoteAddress));
      return true;
    },
  };
}

/**
 * Puts `guard` in front of a server's connections: the listeners of every address hand it sockets
 * by emitting "connection" (listen-on-every-address.ts), which goes through `emit`. On a shared
 * port the front counts each connection as it arrives instead (shared-port.ts), and the two
 * servers behind it are not guarded, so no connection is counted twice.
 */
export function guardConnections(server: Server, guard: ConnectionGuard): void {
  const emit = server.emit as (this: Server, event: string | symbol, ...args: unknown[]) => boolean;
  server.emit = function guardedEmit(this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "connection" && !guard.admit(args[0] as Socket)) return false;
    return emit.call(this, event, ...args);
  } as typeof server.emit;
}
