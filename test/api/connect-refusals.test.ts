import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { fetchJwks } from "../../src/client/fetch-jwks.js";
import type { Jwks } from "../../src/signing/jwk.js";
import { GRPC } from "./error-expectations.js";
import { startServerWithKey, type TestServer } from "../support/test-server.js";

const MODERATE = "/moderation.v1.ModerationService/Moderate";
const BODY = JSON.stringify({ input: [{ type: "text", text: "hello" }] });

let server: TestServer;
let key: string;
let jwks: Jwks;

beforeAll(async () => {
  ({ server, key } = await startServerWithKey({ env: { WORKER_THREADS: "0" } }));
  jwks = await fetchJwks(`${server.httpUrl}/.well-known/jwks.json`);
});
afterAll(async () => {
  await server?.close();
});

/**
 * Issue 19 item 8: Connect answered a wrong Content-Type with a bare 415 (no code, no body, no
 * signature), or fastify did with an unsigned one. Now it is an RPC error like every other.
 */
describe("an RPC route refusing the request itself", () => {
  it.each([
    ["text/plain", { "content-type": "text/plain" }],
    ["application/xml (no parser anywhere)", { "content-type": "application/xml" }],
    ["application/x-www-form-urlencoded", { "content-type": "application/x-www-form-urlencoded" }],
    ["no Content-Type", {}],
    // Connect matched it, then refused text mode itself with a bare 415 (no code, no signature).
    ["application/grpc-web-text (gRPC-Web's base64 mode)", { "content-type": "application/grpc-web-text" }],
  ])("%s: 415 unsupported_media_type in Connect's error shape, signed", async (_name, headers: Record<string, string>) => {
    const response = await fetch(`${server.httpUrl}${MODERATE}`, { method: "POST", headers: { ...headers, "x-api-key": key }, body: BODY });
    expect(response.status).toBe(415);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("x-error-code")).toBe("unsupported_media_type");
    const body = (await response.json()) as { code: string; message: string };
    expect(body.code).toBe("invalid_argument");
    expect(body.message).toMatch(/is not an RPC protocol this route serves: use application\/json or application\/proto \(Connect\)/);
    const outcome = { ok: false as const, code: GRPC.INVALID_ARGUMENT, message: body.message };
    // Bound to an empty request: nothing was read.
    expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata: response.headers, jwks })).toMatchObject({ valid: true });
    expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome: { ...outcome, message: "other" }, metadata: response.headers, jwks }))
      .toMatchObject({ valid: false });
  });

  // An audit (error answers, finding 10): Connect JSON with another charset was told to "use
  // application/json", which it did; the JSON routes name the charset. Same code and status as before.
  it.each([
    ["application/json; charset=latin1", "latin1"],
    ['application/json; charset="ISO-8859-1"', "iso-8859-1"],
    ["application/proto; charset=utf-16", "utf-16"],
    ["application/json; foo=bar; charset=windows-1252", "windows-1252"],
  ])("%s: 415 unsupported_media_type naming the charset, signed", async (contentType, charset) => {
    const response = await fetch(`${server.httpUrl}${MODERATE}`, { method: "POST", headers: { "content-type": contentType, "x-api-key": key }, body: BODY });
    expect(response.status).toBe(415);
    expect(response.headers.get("x-error-code")).toBe("unsupported_media_type");
    const body = (await response.json()) as { code: string; message: string };
    expect(body).toEqual({
      code: "invalid_argument",
      message: `The RPC routes read UTF-8 only (got charset "${charset}"): send the body as UTF-8, with charset=utf-8 or no charset in the Content-Type.`,
      details: expect.any(Array),
    });
    const outcome = { ok: false as const, code: GRPC.INVALID_ARGUMENT, message: body.message };
    expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata: response.headers, jwks })).toMatchObject({ valid: true });
  });

  it("names the protocols, not the charset, when the type itself is not one the route serves", async () => {
    for (const contentType of ["text/plain; charset=latin1", "application/xml; charset=latin1"]) {
      const response = await fetch(`${server.httpUrl}${MODERATE}`, { method: "POST", headers: { "content-type": contentType, "x-api-key": key }, body: BODY });
      expect(response.status, contentType).toBe(415);
      const body = (await response.json()) as { message: string };
      expect(body.message, contentType).toMatch(/is not an RPC protocol this route serves/);
    }
  });

  it("refuses GET on a method that is not idempotent with 405 method_not_allowed, signed", async () => {
    const response = await fetch(`${server.httpUrl}${MODERATE}?message=${encodeURIComponent(BODY)}&encoding=json`, { headers: { "x-api-key": key } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(response.headers.get("x-error-code")).toBe("method_not_allowed");
    const body = (await response.json()) as { code: string; message: string };
    expect(body).toMatchObject({ code: "unimplemented", message: `Use POST for ${MODERATE}.` });
    const outcome = { ok: false as const, code: GRPC.UNIMPLEMENTED, message: body.message };
    expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata: response.headers, jwks })).toMatchObject({ valid: true });
  });

  it("still serves every RPC content type", async () => {
    for (const contentType of ["application/json", "application/json; charset=utf-8"]) {
      const response = await fetch(`${server.httpUrl}${MODERATE}`, { method: "POST", headers: { "content-type": contentType, "x-api-key": key }, body: BODY });
      expect(response.status, contentType).toBe(200);
    }
  });
});
