import http2 from "node:http2";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseExposition, valueOf } from "../observability/scrape.js";
import { sendRawHttp } from "../support/raw-http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const sendRaw = (raw: string) => sendRawHttp(server.httpUrl, raw);

function parse(response: string) {
  const [head, body] = response.split("\r\n\r\n");
  const errorCode = /\r\nx-error-code: ([a-z_]+)/i.exec(head!)?.[1];
  return { status: Number(head!.split(" ")[1]), errorCode, body: JSON.parse(body!) as { error: { code: string; message: string } } };
}

describe("requests fastify cannot route still get the API's error shape", () => {
  it("a malformed URL escape", async () => {
    const raw = await sendRaw("GET /%zz HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine-1\r\n\r\n");
    // Its request id comes back, as on every routed answer.
    expect(raw).toMatch(/\r\nx-request-id: mine-1\r\n/i);
    const { status, body, errorCode } = parse(raw);
    expect(status).toBe(400);
    expect(errorCode).toBe("invalid_request");
    expect(body.error).toEqual({ code: "invalid_request", message: "The request URL is malformed." });
  });

  it("Content-Length together with Transfer-Encoding (request smuggling shape)", async () => {
    const { status, body, errorCode } = parse(
      await sendRaw("POST /v1/moderate HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"),
    );
    expect(status).toBe(400);
    expect(errorCode).toBe("invalid_request");
    expect(body.error).toEqual({ code: "invalid_request", message: "The request is not valid HTTP." });
  });

  // Node hands CONNECT to a 'connect' event; with no listener the socket was closed unanswered.
  it("CONNECT (a proxy tunnel request): 405 in the API's shape, then close", async () => {
    for (const target of ["example.com:443", "/v1/moderate"]) {
      const raw = await sendRaw(`CONNECT ${target} HTTP/1.1\r\nHost: example.com:443\r\n\r\n`);
      expect(raw).toMatch(/\r\nallow: GET, HEAD, POST\r\n/i);
      const { status, body, errorCode } = parse(raw);
      expect(status).toBe(405);
      expect(errorCode).toBe("method_not_allowed");
      expect(body.error).toEqual({ code: "method_not_allowed", message: "CONNECT is not served: this server is no proxy." });
    }
    const samples = parseExposition(await server.ctx.metrics.render());
    expect(valueOf(samples, "moderation_requests_total", { route: "unmatched", protocol: "http", status: "405", code: "method_not_allowed" })).toBe(2);
  });

  it("are counted and logged like any answered request (they were in neither)", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const watched = await startTestServer({ overrides: { log: { error() {}, warn() {}, info: (line: Record<string, unknown>) => void lines.push(line), debug() {} } as never } });
    try {
      await sendRawHttp(watched.httpUrl, "GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n");
      await sendRawHttp(watched.httpUrl, "POST /v1/moderate HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n");
      const samples = parseExposition(await watched.ctx.metrics.render());
      expect(valueOf(samples, "moderation_requests_total", { route: "unmatched", protocol: "http", status: "400", code: "invalid_request" })).toBe(2);
      expect(lines.filter((l) => l.route === "unmatched" && l.status === 400 && l.code === "invalid_request").map((l) => l.method)).toEqual(["GET", "-"]);
    } finally {
      await watched.close();
    }
  });

  it("does not count a connection the caller reset as a malformed request (each was an unmatched 400)", async () => {
    const watched = await startTestServer();
    try {
      const port = Number(new URL(watched.httpUrl).port);
      for (const head of ["GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", ""]) {
        await new Promise<void>((resolve) => {
          const socket = net.connect(port, "127.0.0.1", () => {
            if (head) socket.write(head);
            setTimeout(() => socket.resetAndDestroy(), 100);
          });
          socket.on("error", () => undefined);
          socket.on("close", () => resolve());
        });
      }
      // Nothing to wait for (nothing should come): a while, then nothing counted.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const samples = parseExposition(await watched.ctx.metrics.render());
      expect(samples.filter((s) => s.name === "moderation_requests_total" && s.labels.route === "unmatched")).toEqual([]);
    } finally {
      await watched.close();
    }
  });

  it("answers a method no route knows with 404 (over HTTP/2 it was a 500 internal_error) and QUERY without a body type with 415, each counted once", async () => {
    const watched = await startTestServer();
    try {
      const session = http2.connect(watched.grpcUrl);
      const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) => {
        const stream = session.request({ ":method": "FOO", ":path": "/nope", "x-request-id": "foo-1" });
        stream.on("response", resolve);
        stream.on("error", () => resolve({}));
        stream.end();
      });
      session.close();
      expect([headers[":status"], headers["x-request-id"]]).toEqual([404, "foo-1"]);
      const query = parse(await sendRawHttp(watched.httpUrl, "QUERY /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"));
      expect([query.status, query.errorCode]).toEqual([415, "unsupported_media_type"]);
      const samples = parseExposition(await watched.ctx.metrics.render());
      const counted = samples.filter((s) => s.name === "moderation_requests_total").map((s) => `${s.labels.status} ${s.labels.code} ${s.value}`);
      expect(counted.sort()).toEqual(["404 not_found 1", "415 unsupported_media_type 1"]);
    } finally {
      await watched.close();
    }
  });

  it("counts a broken chunk in a routed request's body once, as the 400 the caller got (it was a 499)", async () => {
    const watched = await startTestServer();
    try {
      const { key } = await watched.createAccount("enterprise", 1000);
      const answer = await sendRawHttp(watched.httpUrl, `POST /v1/moderate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: ${key}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"inp\r\nzz\r\n`);
      expect(parse(answer).status).toBe(400);
      await expect.poll(async () => parseExposition(await watched.ctx.metrics.render()).filter((s) => s.name === "moderation_requests_total").map((s) => `${s.labels.route} ${s.labels.status} ${s.labels.code} ${s.value}`)).toEqual(["/v1/moderate 400 invalid_request 1"]);
    } finally {
      await watched.close();
    }
  });

  it("OPTIONS on /v1/moderate is 405 with Allow: POST", async () => {
    const response = await fetch(`${server.httpUrl}/v1/moderate`, { method: "OPTIONS" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(await response.json()).toEqual({ error: { code: "method_not_allowed", message: "Use POST for /v1/moderate." } });
  });
});

describe("a caller that hangs up in the middle of a body", () => {
  it("costs the server nothing: no error logged, and the next requests are answered as usual", async () => {
    const logged: string[] = [];
    const record = (level: string) => (obj: object, msg?: string) => logged.push(`${level}: ${msg ?? ""} ${JSON.stringify(obj)}`);
    const watched = await startTestServer({ overrides: { log: { error: record("error"), warn: record("warn"), info() {}, debug() {} } } });
    try {
      const port = Number(new URL(watched.httpUrl).port);
      for (let i = 0; i < 5; i++) {
        await new Promise<void>((resolve) => {
          const socket = net.connect(port, "127.0.0.1", () => {
            socket.write(`POST /v1/moderate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"input":[{"type":"te`);
            setTimeout(() => socket.destroy(), 20);
          });
          socket.on("close", () => resolve());
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      const response = await fetch(`${watched.httpUrl}/v1/moderate`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: "missing_api_key" } });
      expect(logged).toEqual([]);
    } finally {
      await watched.close();
    }
  });
});

describe("a caller too slow to send its request (REQUEST_TIMEOUT_MS)", () => {
  /** Writes `head`, then one more byte of body every 100 ms; resolves with what came back and when. */
  function trickle(port: number, head: string): Promise<{ answer: string; afterMs: number }> {
    return new Promise((resolve) => {
      const started = Date.now();
      let answer = "";
      // Half-open allowed: the server must close the connection itself, not leave it to the client.
      const socket = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true }, () => socket.write(head));
      const drip = setInterval(() => socket.writable && socket.write(" "), 100);
      socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
      socket.on("error", () => undefined);
      socket.on("close", () => {
        clearInterval(drip);
        resolve({ answer, afterMs: Date.now() - started });
      });
    });
  }

  it("gets 408 request_timeout and its connection closed, whether its headers or its body were late (a body trickled forever before)", async () => {
    const slow = await startTestServer({ env: { REQUEST_TIMEOUT_MS: "1000" } });
    try {
      const account = await slow.createAccount("enterprise", 1000);
      const port = Number(new URL(slow.httpUrl).port);
      const lateBody = trickle(port, `POST /v1/moderate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: ${account.key}\r\nContent-Length: 100000\r\n\r\n{"input":[{"type":"text","text":"`);
      const lateHeaders = trickle(port, "POST /v1/moderate HTTP/1.1\r\nHost: x\r\nX-Slow: ");
      for (const { answer, afterMs } of await Promise.all([lateBody, lateHeaders])) {
        const { status, errorCode, body } = parse(answer);
        expect(status).toBe(408);
        expect(errorCode).toBe("request_timeout");
        expect(body.error).toEqual({ code: "request_timeout", message: "The request did not arrive in time." });
        expect(afterMs).toBeGreaterThanOrEqual(900);
        expect(afterMs).toBeLessThan(10_000);
      }
      // The late body's bytes no longer count against HELD_BODIES_MAX_MB.
      await expect.poll(() => slow.ctx.heldBodies.held).toBe(0);
      // Each counted once: the late headers before any route, the late body by its route (not as a 499 too).
      const samples = parseExposition(await slow.ctx.metrics.render());
      expect(valueOf(samples, "moderation_requests_total", { route: "unmatched", protocol: "http", status: "408", code: "request_timeout" })).toBe(1);
      expect(valueOf(samples, "moderation_requests_total", { route: "/v1/moderate", protocol: "json", status: "408", code: "request_timeout" })).toBe(1);
      expect(samples.filter((s) => s.name === "moderation_requests_total" && s.labels.status === "499")).toEqual([]);
      // On HTTP/2 the late stream is reset (CANCEL), its body's bytes given back, counted as 408.
      const session = http2.connect(slow.grpcUrl);
      try {
        const stream = session.request({ ":method": "POST", ":path": "/v1/moderate", "content-type": "application/json", "x-api-key": account.key, "content-length": "100000" });
        stream.on("error", () => undefined);
        stream.write('{"input":[{"type":"text","text":"');
        const drip = setInterval(() => !stream.closed && stream.write(" "), 100);
        const started = Date.now();
        const code = await new Promise<number | undefined>((resolve) => stream.once("close", () => resolve(stream.rstCode)));
        clearInterval(drip);
        expect(code).toBe(http2.constants.NGHTTP2_CANCEL);
        expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      } finally {
        session.close();
      }
      await expect.poll(() => slow.ctx.heldBodies.held).toBe(0);
      await expect.poll(async () => valueOf(parseExposition(await slow.ctx.metrics.render()), "moderation_requests_total", { route: "/v1/moderate", protocol: "json", status: "408", code: "request_timeout" })).toBe(2);
      // A stream open both ways by design (gRPC reflection) is not cut at the limit.
      const reflection = http2.connect(slow.grpcUrl);
      try {
        const stream = reflection.request({ ":method": "POST", ":path": "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", "content-type": "application/grpc", te: "trailers" });
        stream.on("error", () => undefined);
        const listServices = Buffer.from([0x3a, 0x00]); // ServerReflectionRequest { list_services: "" }
        const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, listServices.length]), listServices]);
        stream.write(framed);
        const answered = new Promise<void>((resolve) => stream.once("data", () => resolve()));
        await answered;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        expect(stream.closed).toBe(false);
        stream.close();
      } finally {
        reflection.close();
      }
      // The server goes on answering as usual.
      const response = await fetch(`${slow.httpUrl}/v1/moderate`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": account.key }, body: '{"input":[{"type":"text","text":"hello"}]}' });
      expect(response.status).toBe(200);
    } finally {
      await slow.close();
    }
  });
});
