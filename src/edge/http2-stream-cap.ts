import { type Http2ServerRequest, type Http2ServerResponse, constants as http2Constants } from "node:http2";
import type { ConnectionLimits } from "../config/config.js";
import { createPeerTally } from "./peer-tally.js";

type Http2Handler = (request: Http2ServerRequest, response: Http2ServerResponse) => void;

/** The capped handler, and the streams open under the cap now. */
export interface StreamCap {
  handle: Http2Handler;
  open(): number;
}

/**
 * HTTP2_MAX_STREAMS: requests open at once over every HTTP/2 connection together. Each open
 * stream holds about 50 KB in the server (measured: 20,000 streams whose bodies never arrived,
 * public Health.Check calls that need no key, took the process from 1.0 to 2.0 GB), and the
 * per-connection limit (1,000) bounds nothing across connections. Past the cap a new stream is
 * reset with REFUSED_STREAM before any route sees it: RFC 9113 8.7 makes that safe for any
 * client to retry, since nothing was processed. Streams already open are never cut.
 *
 * One peer address holds at most `perAddress` of them (the share MAX_CONNECTIONS_PER_ADDRESS has
 * of MAX_CONNECTIONS, a quarter by default): a keyed caller with two connections of 200 stalled
 * uploads held every place under a cap of 400, and every other caller's new streams were refused.
 */
export function capOpenStreams(handler: Http2Handler, limits: ConnectionLimits, onRefused: () => void): StreamCap {
  const tally = createPeerTally(limits);
  return {
    open: () => tally.open(),
    handle(request, response) {
      const stream = request.stream;
      const peer = request.socket.remoteAddress;
      if (tally.refusal(peer)) {
        onRefused();
        stream.close(http2Constants.NGHTTP2_REFUSED_STREAM);
        return;
      }
      stream.once("close", tally.take(peer));
      handler(request, response);
    },
  };
}

/** One address's share of `maxStreams`: its share of the connections (a quarter by default; all of them behind a proxy). */
export function perAddressStreams(maxStreams: number, connections: ConnectionLimits): number {
  return Math.max(1, Math.ceil((maxStreams * Math.min(connections.perAddress, connections.total)) / connections.total));
}
