import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_REQUEST_BYTES } from "../../src/base/limits.js";
import { callModerate, PROTOCOLS, type Outcome, type Protocol } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { GRPC } from "../api/error-expectations.js";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { toJwks } from "../../src/signing/key-ring.js";

// The RPC side of the body limit: a request larger than MAX_REQUEST_BYTES is refused before it
// is read (guard-request-body.ts), with the API's code and a signature like every other error.
const RPC_PROTOCOLS = PROTOCOLS.filter((p): p is Exclude<Protocol, "json"> => p !== "json");

let server: TestServer;
const outcomes = new Map<Protocol, Outcome>();
beforeAll(async () => {
  server = await startTestServer();
  const { key } = await server.createAccount("enterprise", 1_000_000);
  const oversized = "A".repeat(Math.ceil(MAX_REQUEST_BYTES / 10) + 16);
  const input = Array.from({ length: 10 }, () => ({ type: "image", base64: `data:image/png;base64,${oversized}` }));
  for (const protocol of RPC_PROTOCOLS) outcomes.set(protocol, await callModerate(protocol, server, { input }, key));
}, 120_000);

describe.each(RPC_PROTOCOLS)("an oversized request over %s", (protocol) => {
  it("is refused with RESOURCE_EXHAUSTED and the payload_too_large code", () => {
    expect(outcomes.get(protocol)).toMatchObject({
      ok: false,
      status: GRPC.RESOURCE_EXHAUSTED,
      code: "payload_too_large",
      message: `The request is larger than ${MAX_REQUEST_BYTES} bytes, more than ten maximal items need.`,
    });
  });

  it("is signed, bound to an empty request (the body was never read)", async () => {
    const outcome = outcomes.get(protocol)!;
    if (outcome.ok) throw new Error("expected a refusal");
    const jwks = toJwks(server.ctx.signingKeys);
    const received = { ok: false as const, code: outcome.status, message: outcome.message };
    expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome: received, metadata: outcome.headers, jwks })).toMatchObject({ valid: true });
    expect(await verifyRpcResponse({ requestBytes: new Uint8Array([1]), outcome: received, metadata: outcome.headers, jwks })).toMatchObject({ valid: false });
  });
});

describe("after oversized requests", () => {
  it("the server still answers, and shuts down without hanging on the half-read uploads", async () => {
    const { key } = await server.createAccount("enterprise", 1_000_000);
    const ok = await callModerate("grpc", server, { input: [{ type: "text", text: "hello" }] }, key);
    expect(ok.ok).toBe(true);
    // Before graceful-close.ts cut stuck connections after the grace period, this never returned.
    await server.close();
  }, 30_000);
});

afterAll(async () => {
  await server.close().catch(() => undefined);
});

describe("an oversized Connect request that does not announce its size", () => {
  it("is refused once the bytes received pass the limit, with the code and a signature", async () => {
    const own = await startTestServer();
    try {
      const { key } = await own.createAccount("enterprise", 1_000_000);
      const { request } = await import("node:http");
      const url = new URL(`${own.httpUrl}/moderation.v1.ModerationService/Moderate`);
      const chunk = Buffer.alloc(1024 * 1024, 0x41);
      const response = await new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve, reject) => {
        // No Content-Length: chunked transfer, so only counting the bytes can stop it.
        const req = request(url, { method: "POST", headers: { "content-type": "application/proto", "x-api-key": key, "transfer-encoding": "chunked" } }, (res) => {
          let body = "";
          res.on("data", (d: Buffer) => (body += d.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body }));
        });
        req.on("error", reject);
        let sent = 0;
        const pump = () => {
          while (sent <= MAX_REQUEST_BYTES) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once("drain", pump);
          }
          req.end();
        };
        pump();
      });
      expect(response.status).toBe(429); // Connect's HTTP status for RESOURCE_EXHAUSTED
      expect(response.headers["x-error-code"]).toBe("payload_too_large");
      const error = JSON.parse(response.body) as { code: string; message: string };
      expect(error).toMatchObject({ code: "resource_exhausted", message: `The request is larger than ${MAX_REQUEST_BYTES} bytes, more than ten maximal items need.` });
      const verdict = await verifyRpcResponse({
        requestBytes: new Uint8Array(),
        outcome: { ok: false, code: GRPC.RESOURCE_EXHAUSTED, message: error.message },
        metadata: response.headers,
        jwks: toJwks(own.ctx.signingKeys),
      });
      expect(verdict).toMatchObject({ valid: true });
    } finally {
      await own.close();
    }
  }, 60_000);
});
