import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_REQUEST_BYTES } from "../../src/moderation/limits.js";
import { callModerate, PROTOCOLS, type Outcome, type Protocol } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { GRPC } from "../api/error-expectations.js";

// The RPC side of the body limit: a request larger than MAX_REQUEST_BYTES is refused by
// Connect's readMaxBytes before any interceptor runs.
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
  it("is refused with RESOURCE_EXHAUSTED, the payload_too_large status", () => {
    expect(outcomes.get(protocol)).toMatchObject({ ok: false, status: GRPC.RESOURCE_EXHAUSTED });
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
