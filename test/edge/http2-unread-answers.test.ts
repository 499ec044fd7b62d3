import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { resetUnreadAnswers } from "../../src/edge/http2-unread-answers.js";

const servers: http2.Http2Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** An HTTP/2 server answering every request with `size` bytes, its unread answers reset after `waitMs`. */
async function serve(size: number, waitMs: number): Promise<{ url: string; open: () => number }> {
  const server = http2.createServer();
  let open = 0;
  server.on("request", (request, response) => {
    open++;
    request.stream.once("close", () => open--);
    response.end(Buffer.alloc(size, 0x61));
  });
  resetUnreadAnswers(server, waitMs);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, open: () => open };
}

describe("answers a client does not take (HTTP/2)", () => {
  // Found by an audit: streams answered but never read (a window of 0) held their places under
  // HTTP2_MAX_STREAMS for as long as the client stayed, and every other caller was refused.
  it("are reset once they have waited, and the streams' places freed", async () => {
    const { url, open } = await serve(1_000, 300);
    const client = http2.connect(url, { settings: { initialWindowSize: 0 } });
    try {
      const codes = await Promise.all(Array.from({ length: 20 }, () => new Promise<number>((resolve) => {
        const stream = client.request({ ":path": "/healthz" });
        stream.on("error", () => undefined);
        stream.on("close", () => resolve(stream.rstCode ?? -1));
      })));
      expect(codes.every((code) => code === http2.constants.NGHTTP2_CANCEL)).toBe(true);
      expect(open()).toBe(0);
    } finally {
      client.destroy();
    }
  });

  it("leave alone a client that reads, an answer past its first window included", async () => {
    const { url } = await serve(200_000, 1_000);
    const client = http2.connect(url);
    try {
      const body = await new Promise<number>((resolve, reject) => {
        const stream = client.request({ ":path": "/" });
        let length = 0;
        stream.on("data", (chunk: Buffer) => {
          length += chunk.length;
        });
        stream.on("end", () => resolve(length));
        stream.on("error", reject);
      });
      expect(body).toBe(200_000);
    } finally {
      client.destroy();
    }
  });
});
