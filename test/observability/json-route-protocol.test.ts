import http2 from "node:http2";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendRawHttp } from "../support/raw-http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { parseExposition, type Sample } from "./scrape.js";

// Every answer of a JSON route is counted and logged as protocol "json": those given before the
// interceptor chain (405, 413, 415, a caller gone mid-body, a late body) were "http", beside the
// chain's json 400/401/429.

// OpenAI's route answers a body too large with 400 (openai-error.ts), its code unchanged.
const ROUTES = [
  { route: "/v1/moderate", tooLarge: 413 },
  { route: "/v1/moderations", tooLarge: 400 },
] as const;

let server: TestServer;
let key: string;
const lines: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  const log = { error() {}, warn() {}, info: (line: Record<string, unknown>) => void lines.push(line), debug() {} };
  // A short REQUEST_TIMEOUT_MS, for the 408 of a body that comes too late.
  server = await startTestServer({ env: { REQUEST_TIMEOUT_MS: "1000" }, overrides: { log: log as never } });
  ({ key } = await server.createAccount("enterprise", 1_000_000));
});
afterAll(() => server?.close());

const body = JSON.stringify({ input: [{ type: "text", text: "hello" }] });

/** The request counts of `route` by protocol, status and code. */
async function countsOf(route: string): Promise<string[]> {
  const samples = parseExposition(await server.ctx.metrics.render());
  return samples.filter((s: Sample) => s.name === "moderation_requests_total" && s.labels.route === route && s.value > 0)
    .map((s) => `${s.labels.protocol} ${s.labels.status} ${s.labels.code} ${s.value}`).sort();
}

/** Sends a head and part of its body, then hangs up: the caller is gone mid-body. */
function hangUpMidBody(path: string): Promise<void> {
  const port = Number(new URL(server.httpUrl).port);
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: ${key}\r\nContent-Length: 5000\r\n\r\n{"input":[`);
      setTimeout(() => socket.destroy(), 200);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => resolve());
  });
}

/** Sends a head and part of its body, then waits: the body comes too late (408); resolves with the answer. */
function stallMidBody(path: string): Promise<string> {
  const port = Number(new URL(server.httpUrl).port);
  return new Promise((resolve) => {
    let answer = "";
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: ${key}\r\nContent-Length: 5000\r\n\r\n{"input":[`);
    });
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(answer));
  });
}

/** A GET over HTTP/2, for the 405 counted on the other listener. */
async function getOverHttp2(path: string): Promise<number | undefined> {
  const session = http2.connect(server.grpcUrl);
  try {
    return await new Promise<number | undefined>((resolve) => {
      const stream = session.request({ ":method": "GET", ":path": path });
      stream.on("response", (headers) => resolve(headers[":status"]));
      stream.on("error", () => resolve(undefined));
      stream.resume();
      stream.end();
    });
  } finally {
    session.close();
  }
}

describe.each(ROUTES)("$route", ({ route, tooLarge }) => {
  it("counts its early refusals, a caller gone mid-body and a late body as json, in the metrics and the log", async () => {
    const post = (headers: Record<string, string>) => fetch(`${server.httpUrl}${route}`, { method: "POST", headers: { "x-api-key": key, ...headers }, body }).then(async (r) => {
      await r.arrayBuffer();
      return r.status;
    });
    expect(await post({ "content-type": "text/plain" })).toBe(415);
    expect(await post({ "content-type": "application/json", "content-encoding": "gzip" })).toBe(415);
    // A Content-Type fastify cannot read at all: refused by the route's own error handler.
    expect(await post({ "content-type": "application/json, text/plain" })).toBe(415);
    expect((await fetch(`${server.httpUrl}${route}`)).status).toBe(405);
    expect(await getOverHttp2(route)).toBe(405);
    const tooLargeAnswer = await sendRawHttp(server.httpUrl, `POST ${route} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: ${key}\r\nContent-Length: 999999999\r\nConnection: close\r\n\r\n`);
    expect(tooLargeAnswer).toMatch(new RegExp(`^HTTP/1\\.1 ${tooLarge} [^]*\r\nx-error-code: payload_too_large\r\n`));
    await hangUpMidBody(route);
    expect(await stallMidBody(route)).toMatch(/^HTTP\/1\.1 408 /);
    // The chain's own answers were json already: one, for comparison.
    expect(await post({ "content-type": "application/json", "x-api-key": "mod_bogus" })).toBe(401);

    await expect.poll(() => countsOf(route)).toEqual([
      "json 401 invalid_api_key 1",
      "json 405 method_not_allowed 2",
      `json ${tooLarge} payload_too_large 1`,
      "json 415 unsupported_media_type 3",
      "json 408 request_timeout 1",
      "json 499 cancelled 1",
    ].sort());
    const logged = lines.filter((line) => line.route === route);
    expect(logged).toHaveLength(9);
    expect(logged.filter((line) => line.protocol !== "json")).toEqual([]);
    // Timed under json too (the histogram has no series of its own for them as http).
    const samples = parseExposition(await server.ctx.metrics.render());
    const timed = samples.filter((s) => s.name === "moderation_request_duration_seconds_count" && s.labels.route === route);
    expect(timed.map((s) => `${s.labels.protocol} ${s.value}`)).toEqual(["json 9"]);
  });
});
