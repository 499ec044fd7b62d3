import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseExposition, type Sample } from "../observability/scrape.js";
import { sendRawHttp } from "../support/raw-http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// A served path asked with a method no route is registered for answers 405 (with Allow), counted
// under its route, whatever the method: any token is an HTTP/2 :method (FOO /healthz was a 404
// not_found under "unmatched"), and over HTTP/1.1 QUERY was refused for its Content-Type first (415).

let server: TestServer;
const lines: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  const log = { error() {}, warn() {}, info: (line: Record<string, unknown>) => void lines.push(line), debug: (line: Record<string, unknown>) => void lines.push(line) };
  server = await startTestServer({ overrides: { log: log as never } });
});
afterAll(() => server?.close());

interface Answer {
  status: number | undefined;
  allow: string | undefined;
  errorCode: string | undefined;
  requestId: string | undefined;
  body: string;
}

/** One request over HTTP/2 with any :method. */
async function overHttp2(method: string, path: string, requestId: string): Promise<Answer> {
  const session = http2.connect(server.grpcUrl);
  try {
    return await new Promise<Answer>((resolve, reject) => {
      const stream = session.request({ ":method": method, ":path": path, "x-request-id": requestId });
      stream.on("response", (headers) => {
        let body = "";
        stream.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
        stream.on("end", () => resolve({
          status: headers[":status"], allow: headers.allow as string | undefined, errorCode: headers["x-error-code"] as string | undefined,
          requestId: headers["x-request-id"] as string | undefined, body,
        }));
      });
      stream.on("error", reject);
      stream.end();
    });
  } finally {
    session.close();
  }
}

/** One raw HTTP/1.1 request without a body. */
async function overHttp1(method: string, path: string, requestId: string): Promise<Answer> {
  const raw = await sendRawHttp(server.httpUrl, `${method} ${path} HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n`);
  const [head, body] = raw.split("\r\n\r\n") as [string, string];
  const header = (name: string) => new RegExp(`\r\n${name}: ([^\r]*)`, "i").exec(head)?.[1];
  return { status: Number(head.split(" ")[1]), allow: header("allow"), errorCode: header("x-error-code"), requestId: header("x-request-id"), body };
}

/** The request counts of `route` by protocol, status and code. */
function countsOf(samples: Sample[], route: string): string[] {
  return samples.filter((s) => s.name === "moderation_requests_total" && s.labels.route === route)
    .map((s) => `${s.labels.protocol} ${s.labels.status} ${s.labels.code} ${s.value}`).sort();
}

const logLineOf = (requestId: string) => lines.find((line) => line.requestId === requestId);

describe("a method no route is registered for", () => {
  it("on a served path over HTTP/2 is 405 with Allow, counted and logged under the route", async () => {
    const health = await overHttp2("FOO", "/healthz", "h2-foo-health");
    expect(health).toMatchObject({ status: 405, allow: "GET, HEAD", errorCode: "method_not_allowed", requestId: "h2-foo-health" });
    expect(JSON.parse(health.body)).toEqual({ error: { code: "method_not_allowed", message: "Use GET or HEAD for /healthz." } });
    // A JSON route's own 405, counted as json like the route's other answers.
    const moderate = await overHttp2("FOO", "/v1/moderate", "h2-foo-moderate");
    expect(moderate).toMatchObject({ status: 405, allow: "POST", errorCode: "method_not_allowed", requestId: "h2-foo-moderate" });
    expect(JSON.parse(moderate.body)).toEqual({ error: { code: "method_not_allowed", message: "Use POST for /v1/moderate." } });
    // A method of ten kilobytes and random ones: one series, and the log cuts the method short.
    expect((await overHttp2("M".repeat(10_000), "/healthz", "h2-long")).status).toBe(405);
    for (let i = 0; i < 5; i++) expect((await overHttp2(`RND${i}X`, "/healthz", `h2-rnd-${i}`)).status).toBe(405);

    const samples = parseExposition(await server.ctx.metrics.render());
    expect(countsOf(samples, "/healthz")).toEqual(["http 405 method_not_allowed 7"]);
    expect(countsOf(samples, "/v1/moderate")).toEqual(["json 405 method_not_allowed 1"]);
    expect(logLineOf("h2-foo-health")).toMatchObject({ method: "FOO", route: "/healthz", protocol: "http", status: 405, code: "method_not_allowed" });
    expect(logLineOf("h2-foo-moderate")).toMatchObject({ method: "FOO", route: "/v1/moderate", protocol: "json", status: 405 });
    expect(logLineOf("h2-long")).toMatchObject({ method: "M".repeat(32), route: "/healthz" });
  });

  it("on a served path over HTTP/1.1 is 405 with Allow, QUERY too (it was 415 for its missing Content-Type), under the route", async () => {
    expect(await overHttp1("QUERY", "/healthz", "h1-query-health")).toMatchObject({ status: 405, allow: "GET, HEAD", errorCode: "method_not_allowed", requestId: "h1-query-health" });
    const openAi = await overHttp1("QUERY", "/v1/moderations", "h1-query-openai");
    expect(openAi).toMatchObject({ status: 405, allow: "POST", errorCode: "method_not_allowed" });
    // In OpenAI's error shape, as the route's other answers.
    expect(JSON.parse(openAi.body)).toMatchObject({ error: { code: "method_not_allowed", type: "invalid_request_error" } });
    expect(await overHttp1("PROPFIND", "/v1/moderate", "h1-propfind")).toMatchObject({ status: 405, allow: "POST" });

    await expect.poll(() => [logLineOf("h1-query-health"), logLineOf("h1-query-openai"), logLineOf("h1-propfind")].map((line) => line && `${line.method} ${line.route} ${line.protocol} ${line.status}`)).toEqual([
      "QUERY /healthz http 405",
      "QUERY /v1/moderations json 405",
      "PROPFIND /v1/moderate json 405",
    ]);
    // Routed (timed) like any 405 of a served path.
    const samples = parseExposition(await server.ctx.metrics.render());
    const timed = (route: string, protocol: string) => samples.find((s) => s.name === "moderation_request_duration_seconds_count" && s.labels.route === route && s.labels.protocol === protocol)?.value;
    expect(timed("/v1/moderations", "json")).toBe(1);
  });

  it("on an unknown path is still 404 not_found, unmatched", async () => {
    expect(await overHttp2("FOO", "/nope", "h2-foo-nope")).toMatchObject({ status: 404, errorCode: "not_found", requestId: "h2-foo-nope" });
    expect(logLineOf("h2-foo-nope")).toMatchObject({ method: "FOO", route: "unmatched", status: 404, code: "not_found" });
  });
});
