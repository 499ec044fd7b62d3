import type { Server, Socket } from "node:net";
import type { ConnectionLimits } from "../config/config.js";

/** Why a connection was closed as it arrived (the metric's `reason` label). */
export type ConnectionRefusal = "total" | "per_address";


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
export function createConnectionGuard(limits: ConnectionLimits, onRefused: (reason: ConnectionRefusal) => void): ConnectionGuard {
  let total = 0;
  const byAddress = new Map<string, number>();
  return {
    open: (address) => (address === undefined ? total : (byAddress.get(peerKey(address)) ?? 0)),
    admit(socket) {
      const key = peerKey(socket.remoteAddress ?? "");
      const fromPeer = byAddress.get(key) ?? 0;
      const reason: ConnectionRefusal | undefined = total >= limits.total ? "total" : fromPeer >= limits.perAddress ? "per_address" : undefined;
      if (reason) {
        onRefused(reason);
        socket.destroy();
        return false;
      }
      total++;
      byAddress.set(key, fromPeer + 1);
      socket.once("close", () => {
        total--;
        const left = (byAddress.get(key) ?? 1) - 1;
        if (left > 0) byAddress.set(key, left);
        else byAddress.delete(key);
      });
      return true;
    },
  };
}

/** An IPv4 peer seen through a dual-stack socket ("::ffff:10.0.0.1") is that IPv4 address. */
export function peerKey(address: string): string {
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
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
