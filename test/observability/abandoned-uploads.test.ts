import http2 from "node:http2";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { useServerWithKey } from "../support/test-server.js";
import { scrape, type Sample } from "./scrape.js";

// A caller that hangs up halfway through sending its body gave up on the call: /metrics and the
// request log name it "cancelled" (499), on every protocol, not a 400 for a body that was never
// going to arrive whole.
const MODERATE = "/moderation.v1.ModerationService/Moderate";

const DECLARED = 400_000;
const CASES = [
  { protocol: "json", path: "/v1/moderate", route: "/v1/moderate", contentType: "application/json" },
  { protocol: "connect", path: MODERATE, route: MODERATE, contentType: "application/json" },
  { protocol: "grpc-web", path: MODERATE, route: MODERATE, contentType: "application/grpc-web+proto" },
] as const;

describe("an upload its caller abandons partway", () => {
  const file = useServerWithKey();

  for (const c of CASES) {
    it(`is counted as cancelled over ${c.protocol}`, async () => {
      const url = new URL(file.server.httpUrl);
      const before = requests(await scrape(file.server.httpUrl), c.route, c.protocol);
      const socket = net.connect(Number(url.port), url.hostname);
      await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
      const head = [`POST ${c.path} HTTP/1.1`, `Host: ${url.host}`, `Content-Type: ${c.contentType}`, `X-API-Key: ${file.key}`, `Content-Length: ${DECLARED}`, "", ""].join("\r\n");
      socket.write(head);
      socket.write(Buffer.concat([prefixOf(c.protocol), Buffer.alloc(200_000, 0x20)]));
      // The server has read part of the body by now; then the caller is gone.
      await new Promise((resolve) => setTimeout(resolve, 200));
      socket.destroy();
      expect(await countedAfter(file.server.httpUrl, before, c)).toEqual([{ route: c.route, protocol: c.protocol, status: "499", code: "cancelled" }]);
    });

    it(`is counted as cancelled over ${c.protocol} on HTTP/2 (the stream cancelled)`, async () => {
      const before = requests(await scrape(file.server.httpUrl), c.route, c.protocol);
      const session = http2.connect(file.server.grpcUrl);
      const stream = session.request({ ":method": "POST", ":path": c.path, "content-type": c.contentType, "x-api-key": file.key, "content-length": String(DECLARED) });
      stream.on("error", () => undefined);
      stream.write(Buffer.concat([prefixOf(c.protocol), Buffer.alloc(200_000, 0x20)]));
      await new Promise((resolve) => setTimeout(resolve, 200));
      stream.close(http2.constants.NGHTTP2_CANCEL);
      try {
        expect(await countedAfter(file.server.httpUrl, before, c)).toEqual([{ route: c.route, protocol: c.protocol, status: "499", code: "cancelled" }]);
      } finally {
        session.destroy();
      }
    });
  }
});

/** gRPC-Web's body is framed: a message of the declared size is announced first. */
const prefixOf = (protocol: string) => (protocol === "grpc-web" ? Buffer.from([0, ...u32(DECLARED - 5)]) : Buffer.alloc(0));

/** The request counts /metrics added since `before`, once any was added (or after ten seconds). */
async function countedAfter(url: string, before: Sample[], c: (typeof CASES)[number]): Promise<Record<string, string>[]> {
  let after: Sample[] = [];
  for (let waited = 0; waited < 10_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    after = requests(await scrape(url), c.route, c.protocol);
    if (total(after) > total(before)) break;
  }
  return after.filter((s) => s.value > (before.find((b) => sameLabels(b, s))?.value ?? 0)).map((s) => s.labels);
}

describe("headers cut short by the caller closing", () => {
  const file = useServerWithKey();

  it("are still counted, as a request that never came whole (unmatched 400)", async () => {
    const url = new URL(file.server.httpUrl);
    const unmatched = async () => (await scrape(file.server.httpUrl)).samples.filter((s) => s.name === "moderation_requests_total" && s.labels.route === "unmatched" && s.labels.status === "400").reduce((sum, s) => sum + s.value, 0);
    const before = await unmatched();
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    socket.on("error", () => undefined);
    socket.end(`POST /v1/moderate HTTP/1.1\r\nHost: ${url.host}\r\nContent-`);
    let after = before;
    for (let waited = 0; waited < 5_000 && after === before; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await unmatched();
    }
    socket.destroy();
    expect(after).toBe(before + 1);
  });
});

const requests = (r: { samples: Sample[] }, route: string, protocol: string) =>
  r.samples.filter((s) => s.name === "moderation_requests_total" && s.labels.route === route && s.labels.protocol === protocol);
const total = (samples: Sample[]) => samples.reduce((sum, s) => sum + s.value, 0);
const sameLabels = (a: Sample, b: Sample) => JSON.stringify(a.labels) === JSON.stringify(b.labels);
const u32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
