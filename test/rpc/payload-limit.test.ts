import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_REQUEST_BYTES } from "../../src/moderation/limits.js";
import { callModerate, type Outcome } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { GRPC } from "../api/error-expectations.js";

// The RPC side of the body limit: a Connect request larger than MAX_REQUEST_BYTES is refused
// by Connect's readMaxBytes before any interceptor runs. (gRPC-Web and gRPC are left out:
// over them the half-read request currently keeps the connection busy, so the server cannot
// shut down gracefully; see the report that came with these tests.)

let server: TestServer;
let outcome: Outcome;
beforeAll(async () => {
  server = await startTestServer();
  const { key } = await server.createAccount("enterprise", 1_000_000);
  const oversized = "A".repeat(Math.ceil(MAX_REQUEST_BYTES / 10) + 16);
  const input = Array.from({ length: 10 }, () => ({ type: "image", base64: `data:image/png;base64,${oversized}` }));
  outcome = await callModerate("connect", server, { input }, key);
});
afterAll(() => server?.close());

describe("an oversized Connect request", () => {
  it("is refused with RESOURCE_EXHAUSTED, the payload_too_large status", () => {
    expect(outcome).toMatchObject({ ok: false, status: GRPC.RESOURCE_EXHAUSTED });
  });

  // Known gap: the refusal comes from Connect's readMaxBytes, outside the interceptor chain, so
  // it carries neither the stable code (ErrorDetail / x-error-code) nor the API's message.
  it.fails("carries payload_too_large like every other error", () => {
    expect(outcome).toMatchObject({ ok: false, code: "payload_too_large", headers: { "x-error-code": "payload_too_large" } });
  });
});
