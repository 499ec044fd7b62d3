import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendRawHttp } from "../support/raw-http.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// An HTTP/1.1 answer given before the body arrived closes the connection (close-unread-bodies.ts):
// a client still uploading reads the answer and stops, instead of waiting for the end of an upload
// nobody reads.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const PATH = "/moderation.v1.ModerationService/Moderate";

/** Writes `head` and `first` and never the rest; resolves with what came back and whether the server closed. */
function sendPartly(head: string, first: Uint8Array): Promise<{ response: string; closedByServer: boolean }> {
  const port = Number(new URL(server.httpUrl).port);
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(head);
      socket.write(first);
    });
    let response = "";
    let closedByServer = true;
    socket.on("data", (chunk: Buffer) => { response += chunk.toString("latin1"); });
    socket.on("end", () => socket.end());
    socket.on("close", () => resolve({ response, closedByServer }));
    // Generous: the suite shares two cores. A kept-alive connection goes quiet instead of closing.
    socket.setTimeout(8_000, () => {
      closedByServer = false;
      socket.destroy();
    });
  });
}

/** Sends `raw` and resolves with the head of the answer (status line and headers). */
async function headOf(raw: string): Promise<string> {
  return (await sendRawHttp(server.httpUrl, raw)).split("\r\n\r\n")[0]!;
}

/** A gRPC envelope prefix that announces `length` message bytes. */
function envelopePrefix(length: number): Uint8Array {
  const out = new Uint8Array(5);
  new DataView(out.buffer).setUint32(1, length, false);
  return out;
}

describe("an answer given before the request body arrived", () => {
  it("gRPC-Web announcing 724 MB: RESOURCE_EXHAUSTED with Connection: close, and the server closes", async () => {
    const head = `POST ${PATH} HTTP/1.1\r\nHost: x\r\ncontent-type: application/grpc-web+proto\r\nx-grpc-web: 1\r\ncontent-length: 724000005\r\n\r\n`;
    const { response, closedByServer } = await sendPartly(head, envelopePrefix(724_000_000));
    expect(response).toMatch(/^HTTP\/1\.1 200/);
    expect(response).toMatch(/\r\nconnection: close\r\n/i);
    expect(response).toMatch(/grpc-status: ?8/);
    expect(response).toMatch(/x-error-code: ?payload_too_large/);
    expect(closedByServer).toBe(true);
  });

  it("Connect with an unknown compression: 501 with Connection: close, and the server closes", async () => {
    const head = `POST ${PATH} HTTP/1.1\r\nHost: x\r\ncontent-type: application/proto\r\ncontent-encoding: zstd\r\ncontent-length: 100000\r\n\r\n`;
    const { response, closedByServer } = await sendPartly(head, new Uint8Array(10));
    expect(response).toMatch(/^HTTP\/1\.1 501/);
    expect(response).toMatch(/\r\nconnection: close\r\n/i);
    expect(response).toMatch(/unsupported_encoding/);
    expect(closedByServer).toBe(true);
  });

  // No key, and no route that reads a body: the body is never read or parsed (fastify's default
  // JSON parser read up to 70 MB and parsed it before the 404 or 405: 68 MB of nested brackets
  // held the event loop 15 s). The answer comes while the body is still on its way.
  it.each([
    ["an unknown path", "POST /nope", 404, "not_found"],
    ["another method on /v1/moderate", "PUT /v1/moderate", 405, "method_not_allowed"],
    ["another method on /v1/moderations", "DELETE /v1/moderations", 405, "method_not_allowed"],
    ["/healthz", "POST /healthz", 405, "method_not_allowed"],
  ])("JSON sent to %s is not read: %s answers at once, signed", async (_what, requestLine, status, code) => {
    const head = `${requestLine} HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 68000000\r\n\r\n`;
    const { response, closedByServer } = await sendPartly(head, new TextEncoder().encode("[".repeat(1000)));
    expect(response).toMatch(new RegExp(`^HTTP/1\\.1 ${status}`));
    expect(response).toMatch(/\r\nsignature: /i);
    expect(response).toMatch(/\r\nconnection: close\r\n/i);
    expect(response).toContain(`"code":"${code}"`);
    expect(response).toMatch(new RegExp(`\\r\\nx-error-code: ${code}\\r\\n`, "i"));
    expect(closedByServer).toBe(true);
  });

  it("a request read in full, or with no body, keeps its connection", async () => {
    const body = JSON.stringify({ input: [{ type: "text", text: "hello" }] });
    const post = await headOf(`POST /v1/moderate HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    expect(post).toMatch(/^HTTP\/1\.1 401/);
    expect(post).toMatch(/\r\nconnection: keep-alive/i);
    // The JWKS route answers within the event that parsed the head, before Node marks a GET complete.
    for (const path of ["/.well-known/jwks.json", "/healthz"]) {
      const get = await headOf(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(get, path).toMatch(/^HTTP\/1\.1 200/);
      expect(get, path).toMatch(/\r\nconnection: keep-alive/i);
    }
  });
});
