import { create, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { canonicalMessageBytes } from "../../src/signing/canonical-message.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { GRPC } from "../api/error-expectations.js";
import { callModerate } from "../support/protocol-clients.js";
import { postRefused, RAW_PROTOCOLS } from "../support/raw-moderate.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

/**
 * An account over its rate limit gets its 429 before its body is parsed or decoded
 * (interceptors/rate-limit-ahead.ts): a rate-limited key's 60 MB JSON body of 2.2 million items
 * kept the event loop 1.8 s before its 429. What is charged does not change (docs/rate-limits.md).
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const GRPC_PROTOCOL = RAW_PROTOCOLS[0]!;
const RATE_LIMITED = /^Rate limit exceeded\. This account's plan allows 10 requests per minute\. Retry in \d+ s\.$/;
const LONG_TEXT = "x".repeat(100_000);

/** A Free account that has made its ten requests of the minute. */
async function exhaustedKey(): Promise<string> {
  const { key } = await server.createAccount("free");
  for (let i = 0; i < 10; i++) expect((await callModerate("json", server, { input: [{ type: "text", text: "hello" }] }, key)).ok).toBe(true);
  return key;
}

/** The calls of JSON.parse on text at least `length` long made while `send` runs. */
async function parsesDuring(length: number, send: () => Promise<void>): Promise<number> {
  const parse = vi.spyOn(JSON, "parse");
  try {
    await send();
    return parse.mock.calls.filter(([text]) => typeof text === "string" && text.length >= length).length;
  } finally {
    parse.mockRestore();
  }
}

describe("an account over its rate limit", () => {
  it.each([
    ["/v1/moderate", { input: [{ type: "text", text: LONG_TEXT }] }],
    ["/v1/moderations", { input: LONG_TEXT }],
  ])("%s: 429 without its body parsed", async (path, body) => {
    const key = await exhaustedKey();
    const parses = await parsesDuring(LONG_TEXT.length, async () => {
      const response = await fetch(`${server.httpUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: JSON.stringify(body) });
      expect(response.status).toBe(429);
      expect(response.headers.get("x-error-code")).toBe("rate_limit_exceeded");
      expect(response.headers.get("x-ratelimit-remaining")).toBe("0");
      await response.arrayBuffer();
    });
    expect(parses).toBe(0);
  });

  it("gRPC, a message over 64 KiB: 429 without it decoded, so bound to an empty request", async () => {
    const key = await exhaustedKey();
    const request = create(ModerateRequestSchema, { input: [{ type: "text", text: LONG_TEXT }] });
    const refusal = await postRefused(GRPC_PROTOCOL, server, toBinary(ModerateRequestSchema, request), { "x-api-key": key });
    expect(refusal).toMatchObject({ code: GRPC.RESOURCE_EXHAUSTED, errorCode: "rate_limit_exceeded" });
    expect(refusal.message).toMatch(RATE_LIMITED);
    expect(refusal.metadata["retry-after"]).toMatch(/^\d+$/);
    const outcome = { ok: false as const, code: refusal.code, message: refusal.message };
    const verify = (requestBytes: Uint8Array) => verifyRpcResponse({ requestBytes, outcome, metadata: refusal.metadata, jwks: toJwks(server.ctx.signingKeys) });
    expect(await verify(new Uint8Array())).toMatchObject({ valid: true });
    expect(await verify(canonicalMessageBytes(ModerateRequestSchema, request))).toMatchObject({ valid: false });
  });

  it("gRPC, a smaller message: decoded first, as before (asking the limiter twice would cost more), its 429 bound to it", async () => {
    const key = await exhaustedKey();
    const request = create(ModerateRequestSchema, { input: [{ type: "text", text: "hello" }] });
    const refusal = await postRefused(GRPC_PROTOCOL, server, toBinary(ModerateRequestSchema, request), { "x-api-key": key });
    expect(refusal).toMatchObject({ code: GRPC.RESOURCE_EXHAUSTED, errorCode: "rate_limit_exceeded" });
    const outcome = { ok: false as const, code: refusal.code, message: refusal.message };
    const verified = await verifyRpcResponse({ requestBytes: canonicalMessageBytes(ModerateRequestSchema, request), outcome, metadata: refusal.metadata, jwks: toJwks(server.ctx.signingKeys) });
    expect(verified).toMatchObject({ valid: true });
  });
});

describe("what is charged does not change", () => {
  it("JSON: a body refused for its items before parsing is charged, as when the validator refused it", async () => {
    const { key } = await server.createAccount("free");
    const outcome = await callModerate("json", server, { input: Array.from({ length: 11 }, () => ({ type: "text", text: "x" })) }, key);
    expect(outcome).toMatchObject({ ok: false, code: "too_many_items" });
    expect(outcome.headers["x-ratelimit-remaining"]).toBe("9");
  });

  it("RPC: a body over 64 KiB that does not decode is refused by the body guard, uncharged (the check before decoding charges nothing)", async () => {
    const { key } = await server.createAccount("free");
    // One item announced longer than the body: fromBinary runs out of bytes inside it.
    const undecodable = Uint8Array.from([0x0a, 0x90, 0x80, 0x08, ...new Uint8Array(70_000).fill(0x61)]);
    for (let i = 0; i < 3; i++) {
      expect(await postRefused(GRPC_PROTOCOL, server, undecodable, { "x-api-key": key })).toMatchObject({ code: GRPC.INVALID_ARGUMENT, errorCode: "invalid_request" });
    }
    const answered = await callModerate("grpc", server, { input: [{ type: "text", text: "hello" }] }, key);
    expect(answered.ok).toBe(true);
    expect(answered.headers["x-ratelimit-remaining"]).toBe("9");
  });
});
