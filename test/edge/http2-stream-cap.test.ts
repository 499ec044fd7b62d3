import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNTRUSTED_ARRIVAL_MS } from "../../src/edge/http2-request-timeout.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { waitUntil } from "../support/poll.js";

// HTTP2_MAX_STREAMS bounds requests open at once over every HTTP/2 connection together: the
// per-connection limit alone let 20 connections hold 20,000 public Health.Check streams whose
// bodies never came (about 1 GB) until REQUEST_TIMEOUT_MS.

const CAP = 30;
let server: TestServer;

beforeAll(async () => {
  // One address may hold all of them here (its share of connections is the whole); the share is tested below.
  server = await startTestServer({ env: { HTTP2_MAX_STREAMS: String(CAP), MAX_CONNECTIONS: "100", MAX_CONNECTIONS_PER_ADDRESS: "100" } });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

/** A public unary call whose body never arrives: the stream stays open on the server. */
function openUnfinishedCall(session: http2.ClientHttp2Session): http2.ClientHttp2Stream {
  const stream = session.request({ ":method": "POST", ":path": "/grpc.health.v1.Health/Check", "content-type": "application/grpc", te: "trailers" }, { endStream: false });
  stream.on("error", () => {});
  stream.write(Buffer.from([0, 0, 0, 0, 5]));
  return stream;
}

function closeCode(stream: http2.ClientHttp2Stream): Promise<number> {
  return new Promise((resolve) => stream.once("close", () => resolve(stream.rstCode ?? -1)));
}

async function metricValue(name: string): Promise<number> {
  const text = await server.ctx.metrics.render();
  const line = text.split("\n").find((row) => row.startsWith(`${name} `));
  return Number(line?.split(" ")[1]);
}

async function healthCheckStatus(session: http2.ClientHttp2Session): Promise<string | number> {
  const stream = session.request({ ":method": "GET", ":path": "/healthz" });
  stream.on("error", () => {});
  const code = closeCode(stream);
  const status = await new Promise<string | number>((resolve) => {
    stream.once("response", (headers) => resolve(headers[":status"] ?? "none"));
    stream.once("close", () => resolve(`reset ${stream.rstCode}`));
  });
  stream.resume();
  await code;
  return status;
}

describe("HTTP2_MAX_STREAMS", () => {
  it("refuses new streams past the cap across connections with REFUSED_STREAM, and serves again once streams close", async () => {
    // Three connections, each well under its own 1,000-stream limit, fill the cap together.
    const sessions = [0, 1, 2].map(() => http2.connect(server.grpcUrl));
    for (const session of sessions) session.on("error", () => {});
    const held = sessions.flatMap((session) => Array.from({ length: CAP / 3 }, () => openUnfinishedCall(session)));
    await waitUntil(async () => (await metricValue("moderation_http2_open_streams")) === CAP, "moderation_http2_open_streams at CAP", 5_000);
    const probe = http2.connect(server.grpcUrl);
    probe.on("error", () => {});
    expect(await healthCheckStatus(probe)).toBe(`reset ${http2.constants.NGHTTP2_REFUSED_STREAM}`);
    expect(await metricValue("moderation_http2_streams_refused_total")).toBe(1);

    // Streams already open are not cut by the refusals; closing a few frees their places.
    const freed = held.splice(0, 3);
    const closed = freed.map(closeCode);
    for (const stream of freed) stream.close(http2.constants.NGHTTP2_CANCEL);
    await Promise.all(closed);
    await waitUntil(async () => (await metricValue("moderation_http2_open_streams")) === CAP - 3, "moderation_http2_open_streams at CAP - 3", 5_000);
    expect(await healthCheckStatus(probe)).toBe(200);
    expect(held.every((stream) => !stream.closed)).toBe(true);

    probe.close();
    for (const session of sessions) session.destroy();
    await waitUntil(async () => (await metricValue("moderation_http2_open_streams")) === 0, "moderation_http2_open_streams at 0", 5_000);
  }, 30_000);
});

describe("one address's share of HTTP2_MAX_STREAMS", () => {
  // A keyed caller with two connections of 200 stalled uploads held every place under a cap of
  // 400, and every other caller's new streams were refused; one address now holds at most its
  // share of the connections' (MAX_CONNECTIONS_PER_ADDRESS of MAX_CONNECTIONS: a quarter here).
  let shared: TestServer;
  beforeAll(async () => {
    shared = await startTestServer({ env: { HTTP2_MAX_STREAMS: "40", MAX_CONNECTIONS: "100", MAX_CONNECTIONS_PER_ADDRESS: "25" } });
  }, 60_000);
  afterAll(async () => {
    await shared?.close();
  });

  it("refuses one address's streams past a quarter of the cap, over any number of its connections, and serves another address", async () => {
    const from = (localAddress: string) => {
      const session = http2.connect(shared.grpcUrl, { localAddress } as http2.SecureClientSessionOptions);
      session.on("error", () => {});
      return session;
    };
    const greedy = [from("127.0.0.2"), from("127.0.0.2")];
    const held = greedy.flatMap((session) => Array.from({ length: 5 }, () => openUnfinishedCall(session)));
    const open = async () => Number((await shared.ctx.metrics.render()).split("\n").find((row) => row.startsWith("moderation_http2_open_streams "))?.split(" ")[1]);
    await waitUntil(async () => (await open()) === 10, "open streams at 10", 5_000);
    const third = from("127.0.0.2");
    expect(await healthCheckStatus(third)).toBe(`reset ${http2.constants.NGHTTP2_REFUSED_STREAM}`);
    const other = from("127.0.0.3");
    expect(await healthCheckStatus(other)).toBe(200);
    expect(held.every((stream) => !stream.closed)).toBe(true);
    for (const session of [...greedy, third, other]) session.destroy();
  }, 30_000);

  // grpc-core (Python, C++, Ruby) queues calls only against SETTINGS_MAX_CONCURRENT_STREAMS: with
  // 1,000 announced and a share of 512, a burst of 700 calls on one channel had 188 fail at once.
  it("announces the share as each connection's concurrent streams, so one connection's calls past it wait instead of being refused", async () => {
    const open = async () => Number((await shared.ctx.metrics.render()).split("\n").find((row) => row.startsWith("moderation_http2_open_streams "))?.split(" ")[1]);
    const refused = async () => Number((await shared.ctx.metrics.render()).split("\n").find((row) => row.startsWith("moderation_http2_streams_refused_total "))?.split(" ")[1]);
    await waitUntil(async () => (await open()) === 0, "open streams at 0", 5_000);
    const refusedBefore = await refused();
    const session = http2.connect(shared.grpcUrl, { localAddress: "127.0.0.4" } as http2.SecureClientSessionOptions);
    session.on("error", () => {});
    await new Promise((resolve) => session.once("remoteSettings", resolve));
    expect(session.remoteSettings.maxConcurrentStreams).toBe(10);

    const calls = Array.from({ length: 15 }, () => openUnfinishedCall(session));
    await waitUntil(async () => (await open()) === 10, "open streams at 10", 5_000);
    // The five past the share wait in the client; as held ones end (their requests finished and
    // answered, as a client's calls end), they are sent and served.
    const ended = calls.slice(0, 5);
    const closed = ended.map(closeCode);
    for (const stream of ended) {
      stream.resume();
      stream.end(Buffer.from([0, 0, 0, 0, 0]));
    }
    expect(await Promise.all(closed)).toEqual([0, 0, 0, 0, 0]);
    await waitUntil(async () => (await open()) === 10, "open streams at 10", 5_000);
    expect(calls.slice(5).every((stream) => !stream.closed)).toBe(true);
    expect(await refused()).toBe(refusedBefore);
    session.destroy();
  }, 30_000);
});

describe("an HTTP/2 request with no live key whose body does not come", () => {
  it(`is reset after ${UNTRUSTED_ARRIVAL_MS / 1000} s, not REQUEST_TIMEOUT_MS (300 s), and frees its place; one with a live key waits on`, async () => {
    const { key } = await server.createAccount("enterprise", 1_000);
    const session = http2.connect(server.grpcUrl);
    session.on("error", () => {});
    const unfinished = (headers: http2.OutgoingHttpHeaders, firstBytes: Buffer | string): http2.ClientHttp2Stream => {
      const stream = session.request({ ":method": "POST", ...headers }, { endStream: false });
      stream.on("error", () => {});
      stream.write(firstBytes);
      return stream;
    };
    const grpc = { "content-type": "application/grpc", te: "trailers" };
    const envelopeHead = Buffer.from([0, 0, 0, 0, 5]);
    // A made-up key header was enough for 300 s until the routes told the listener the key is not live.
    const untrusted = {
      keyless: openUnfinishedCall(session),
      "a made-up key over gRPC": unfinished({ ":path": "/moderation.v1.ModerationService/Moderate", ...grpc, "x-api-key": `${key}x` }, envelopeHead),
      "a made-up key on the JSON route": unfinished({ ":path": "/v1/moderate", "content-type": "application/json", "x-api-key": `${key}x` }, '{"items":['),
      "a made-up bearer key on OpenAI's route": unfinished({ ":path": "/v1/moderations", "content-type": "application/json", authorization: `Bearer ${key}x` }, '{"input":'),
      "a public method with a live key": unfinished({ ":path": "/grpc.health.v1.Health/Check", ...grpc, "x-api-key": key }, envelopeHead),
    };
    const live = unfinished({ ":path": "/moderation.v1.ModerationService/Moderate", ...grpc, "x-api-key": key }, envelopeHead);
    const started = Date.now();
    const closed = await Promise.all(Object.entries(untrusted).map(async ([name, stream]) => [name, await closeCode(stream), Date.now() - started] as const));
    for (const [name, code, afterMs] of closed) {
      expect({ name, code }).toEqual({ name, code: http2.constants.NGHTTP2_CANCEL });
      expect(afterMs).toBeGreaterThanOrEqual(UNTRUSTED_ARRIVAL_MS - 500);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(live.closed).toBe(false);
    expect(await metricValue("moderation_http2_open_streams")).toBe(1);
    session.destroy();
  }, UNTRUSTED_ARRIVAL_MS + 15_000);
});

