import type { ConnectionLimits } from "../config/config.js";

/** Which bound a new connection or stream would pass: all of them, or its peer address's share. */
export type PeerRefusal = "total" | "per_address";

/**
 * Things open at once (connections, HTTP/2 streams), in all and per peer address, under bounds on
 * both: the one count behind connection-limits.ts and http2-stream-cap.ts.
 */
export interface PeerTally {
  /** The bound one more from `address` would pass, or undefined when it fits. */
  refusal(address: string | undefined): PeerRefusal | undefined;
  /** Counts one more from `address`; the function returned counts it out again (call it once). */
  take(address: string | undefined): () => void;
  /** Open now, in all or from one address. */
  open(address?: string): number;
}

export function createPeerTally(limits: ConnectionLimits): PeerTally {
  let total = 0;
  const byAddress = new Map<string, number>();
  return {
    open: (address) => (address === undefined ? total : (byAddress.get(peerKey(address)) ?? 0)),
    refusal(address) {
      if (total >= limits.total) return "total";
      return (byAddress.get(peerKey(address)) ?? 0) >= limits.perAddress ? "per_address" : undefined;
    },
    take(address) {
      const key = peerKey(address);
      total++;
      byAddress.set(key, (byAddress.get(key) ?? 0) + 1);
      return () => {
        total--;
        const left = (byAddress.get(key) ?? 1) - 1;
        if (left > 0) byAddress.set(key, left);
        else byAddress.delete(key);
      };
    },
  };
}

/** An IPv4 peer seen through a dual-stack socket ("::ffff:10.0.0.1") is that IPv4 address. */
function peerKey(address: string | undefined): string {
  const known = address ?? "";
  return known.startsWith("::ffff:") && known.includes(".") ? known.slice(7) : known;
}
