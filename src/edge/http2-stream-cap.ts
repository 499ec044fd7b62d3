import { type Http2ServerRequest, type Http2ServerResponse, constants as http2Constants } from "node:http2";

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
 */
export function capOpenStreams(handler: Http2Handler, maxStreams: number, onRefused: () => void): StreamCap {
  let open = 0;
  return {
    open: () => open,
    handle(request, response) {
      const stream = request.stream;
      if (open >= maxStreams) {
        onRefused();
        stream.close(http2Constants.NGHTTP2_REFUSED_STREAM);
        return;
      }
      open++;
      stream.once("close", () => open--);
      handler(request, response);
    },
  };
}
