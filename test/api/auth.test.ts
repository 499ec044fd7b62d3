import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callModerate, PROTOCOLS } from "../support/protocol-clients.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const GRPC_UNAUTHENTICATED = 16;
const body = { input: [{ type: "text", text: "hello there" }] };

// The shared auth suite: no key, unknown key, revoked key, on every protocol.
describe.each(PROTOCOLS)("auth over %s", (protocol) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const expectedStatus = protocol === "json" ? 401 : GRPC_UNAUTHENTICATED;

  it("refuses a call without a key", async () => {
    const outcome = await callModerate(protocol, server, body);
    expect(outcome).toMatchObject({ ok: false, code: "missing_api_key", status: expectedStatus });
    // Exactly the same words on every protocol (grpc-js included: see grpc-message-encoding.ts).
    if (!outcome.ok) expect(outcome.message).toBe("An API key is required: send it in the X-API-Key header or as Authorization: Bearer <key> (x-api-key or authorization metadata on gRPC).");
  });

  it("refuses an unknown key", async () => {
    const outcome = await callModerate(protocol, server, body, "mod_AAAAAAAA_" + "A".repeat(43));
    expect(outcome).toMatchObject({ ok: false, code: "invalid_api_key", status: expectedStatus });
    if (!outcome.ok) expect(outcome.message).toBe("The API key is invalid or has been revoked.");
  });

  it("refuses a garbage key without touching the store", async () => {
    const outcome = await callModerate(protocol, server, body, "not a key");
    expect(outcome).toMatchObject({ ok: false, code: "invalid_api_key" });
  });

  it("accepts a valid key, then refuses it as soon as it is revoked", async () => {
    const { key, keyId } = await server.createAccount();
    const first = await callModerate(protocol, server, body, key);
    expect(first.ok).toBe(true);
    await server.ctx.accounts.revokeKey(keyId);
    const second = await callModerate(protocol, server, body, key);
    expect(second).toMatchObject({ ok: false, code: "invalid_api_key", status: expectedStatus });
    if (!second.ok) expect(second.message).toMatch(/invalid or has been revoked/);
    if (!second.ok && protocol !== "json") expect(second.headers["x-error-code"]).toBe("invalid_api_key");
  });
});
