import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendRawHttp } from "../support/raw-http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Answers written straight to the socket (no route saw the request) carry X-Request-Id, the id of
// their log line, as every other answer does (docs/observability.md, Request ids).

let server: TestServer;
const lines: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  const log = { error() {}, warn() {}, info: (line: Record<string, unknown>) => void lines.push(line), debug() {} };
  // A short REQUEST_TIMEOUT_MS, for the 408 of headers that never end.
  server = await startTestServer({ env: { REQUEST_TIMEOUT_MS: "1000" }, overrides: { log: log as never } });
});
afterAll(() => server?.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The status and the X-Request-Id of a raw answer. */
function headOf(answer: string): { status: number; requestId: string | undefined } {
  const head = answer.split("\r\n\r\n")[0]!;
  return { status: Number(head.split(" ")[1]), requestId: /\r\nx-request-id: ([^\r]*)\r\n/i.exec(head)?.[1] };
}

/** Writes `head` and nothing more; resolves with what came back once the server closed. */
function sendUnfinished(head: string): Promise<string> {
  const port = Number(new URL(server.httpUrl).port);
  return new Promise((resolve) => {
    let answer = "";
    const socket = net.connect(port, "127.0.0.1", () => socket.write(head));
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(answer));
  });
}

describe("an answer written on the socket", () => {
  it.each([
    ["broken framing (Content-Length with Transfer-Encoding)", "POST /v1/moderate HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400],
    ["a method Node does not know", "FOOBAR / HTTP/1.1\r\nHost: x\r\n\r\n", 400],
    ["CONNECT", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 405],
    ["headers over the limit (431)", `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431],
  ])("carries the X-Request-Id of its log line: %s", async (_name, raw, status) => {
    const answer = headOf(await sendRawHttp(server.httpUrl, raw));
    expect(answer.status).toBe(status);
    expect(answer.requestId).toMatch(UUID);
    await expect.poll(() => lines.filter((line) => line.requestId === answer.requestId).map((line) => [line.route, line.status])).toEqual([["unmatched", status]]);
  });

  it("carries the X-Request-Id of its log line when the headers came too late (408)", async () => {
    const answer = headOf(await sendUnfinished("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "));
    expect(answer.status).toBe(408);
    expect(answer.requestId).toMatch(UUID);
    await expect.poll(() => lines.filter((line) => line.requestId === answer.requestId).map((line) => [line.route, line.status, line.code])).toEqual([["unmatched", 408, "request_timeout"]]);
  });

  it("keeps a CONNECT caller's well-formed X-Request-Id, as a routed answer does", async () => {
    const answer = headOf(await sendRawHttp(server.httpUrl, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nX-Request-Id: tunnel-7\r\n\r\n"));
    expect(answer).toEqual({ status: 405, requestId: "tunnel-7" });
    await expect.poll(() => lines.filter((line) => line.requestId === "tunnel-7").map((line) => line.method)).toEqual(["CONNECT"]);
  });
});
