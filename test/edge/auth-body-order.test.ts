import { describe, expect, it } from "vitest";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { MAX_REQUEST_BYTES } from "../../src/base/limits.js";
import { GRPC } from "../api/error-expectations.js";
import { envelope, postH1, postH2 } from "../support/raw-rpc.js";
import { useServerWithKey } from "../support/test-server.js";

/**
 * The one order of auth and body checks (docs/architecture.md, "Auth and body checks"), on every
 * protocol over real sockets: 1. what the headers say the route cannot serve (415), 2. the size
 * (413), 3. the key (401), 4. the body itself (400). A body that does not parse is refused as
 * invalid_request only for a live key; without one, the key's refusal comes first.
 */

const MODERATE_PATH = "/moderation.v1.ModerationService/Moderate";
const WRONG_KEY = `mod_AAAAAAAA_${"A".repeat(43)}`;
/** Field 1 (input) announced as 16 bytes long, with 1 byte present: no ModerateRequest. */
const BAD_PROTO = new Uint8Array([0x0a, 0x10, 0x0a]);
const BAD_JSON = new TextEncoder().encode('{"input": [');

type Key = "no key" | "wrong key" | "good key";
/** What every protocol answers a bad body with, by key: the documented order's steps 3 and 4. */
const BAD_BODY: Record<Key, string> = { "no key": "missing_api_key", "wrong key": "invalid_api_key", "good key": "invalid_request" };
const HTTP_STATUS: Record<string, number> = { missing_api_key: 401, invalid_api_key: 401, invalid_request: 400, unsupported_media_type: 415, payload_too_large: 413 };
/** OpenAI's SDKs have no error class for 413: the OpenAI route answers an oversized body 400 (openai-error.ts). */
const OPENAI_STATUS: Record<string, number> = { ...HTTP_STATUS, payload_too_large: 400 };
const GRPC_STATUS: Record<string, number> = {
  missing_api_key: GRPC.UNAUTHENTICATED, invalid_api_key: GRPC.UNAUTHENTICATED, invalid_request: GRPC.INVALID_ARGUMENT,
  unsupported_media_type: GRPC.INVALID_ARGUMENT, payload_too_large: GRPC.RESOURCE_EXHAUSTED,
};

/** Connect's HTTP status for each code (its refusals of a request use the error table's instead). */
const CONNECT_STATUS: Record<string, number> = { missing_api_key: 401, invalid_api_key: 401, invalid_request: 400, unsupported_media_type: 415, payload_too_large: 429 };

interface Answered { status: number; code: string | undefined }
/** Sends a message (or a body over the limit) with these headers. */
type Send = (message: Uint8Array | "over the limit", headers: Record<string, string>) => Promise<Answered>;

const file = useServerWithKey();

const jsonRoute = (path: string): Send => async (message, headers) => {
  const body = message === "over the limit" ? new Uint8Array(MAX_REQUEST_BYTES + 1) : message;
  const response = await fetch(`${file.server.httpUrl}${path}`, { method: "POST", headers, body: Buffer.from(body) });
  const answer = (await response.json()) as { error?: { code?: string } };
  return { status: response.status, code: answer.error?.code };
};
const rpc = (transport: "h1" | "h2", enveloped: boolean): Send => async (message, headers) => {
  const url = transport === "h2" ? file.server.grpcUrl : file.server.httpUrl;
  const body = message !== "over the limit" ? (enveloped ? envelope(message) : message) : enveloped ? announcing(MAX_REQUEST_BYTES + 1) : new Uint8Array(MAX_REQUEST_BYTES + 1);
  const answer = await (transport === "h2" ? postH2 : postH1)(url, MODERATE_PATH, headers, body);
  return { status: answer.grpcStatus ?? answer.httpStatus, code: answer.metadata["x-error-code"] };
};

/** An envelope prefix announcing a message of `size` bytes, and none of it: refused on the announcement. */
function announcing(size: number): Uint8Array {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(size, 1);
  return prefix;
}

const PROTOCOLS = [
  { name: "JSON, POST /v1/moderate", contentType: "application/json", send: jsonRoute("/v1/moderate"), badBody: BAD_JSON, statuses: HTTP_STATUS },
  { name: "OpenAI, POST /v1/moderations", contentType: "application/json", send: jsonRoute("/v1/moderations"), badBody: BAD_JSON, statuses: OPENAI_STATUS },
  { name: "Connect, application/proto", contentType: "application/proto", send: rpc("h1", false), badBody: BAD_PROTO, statuses: CONNECT_STATUS },
  { name: "Connect, application/json", contentType: "application/json", send: rpc("h1", false), badBody: BAD_JSON, statuses: CONNECT_STATUS },
  { name: "gRPC-Web", contentType: "application/grpc-web+proto", send: rpc("h1", true), badBody: BAD_PROTO, statuses: GRPC_STATUS },
  { name: "gRPC", contentType: "application/grpc+proto", send: rpc("h2", true), badBody: BAD_PROTO, statuses: GRPC_STATUS },
];

describe.each(PROTOCOLS)("$name", ({ contentType, send, badBody, statuses }) => {
  const keyHeader = (key: Key): Record<string, string> => (key === "no key" ? {} : { "x-api-key": key === "good key" ? file.key : WRONG_KEY });
  const expectAnswer = (answer: Answered, code: string, statusOf = statuses) => expect(answer).toEqual({ status: statusOf[code], code });

  it.each(["no key", "wrong key", "good key"] as const)("a bad body with %s", async (key) => {
    expectAnswer(await send(badBody, { "content-type": contentType, ...keyHeader(key) }), BAD_BODY[key]);
  });

  // Step 1: a Content-Type the route does not serve is refused before the key (in Connect's shape on RPC routes).
  it.each(["no key", "wrong key", "good key"] as const)("a bad body in a Content-Type the route does not serve, with %s", async (key) => {
    expectAnswer(await send(badBody, { "content-type": "text/plain", ...keyHeader(key) }), "unsupported_media_type", HTTP_STATUS);
  });

  // Step 2: a body over the limit is refused before the key.
  it("a body over the limit, without a key", async () => {
    expectAnswer(await send("over the limit", { "content-type": contentType }), "payload_too_large");
  });
});

/**
 * Without a live key at most 64 KiB of a body is held (json-request.ts, guard-request-body.ts): a
 * longer one is read to its end and dropped, so its refusal is signed over no body at all. Held
 * whole, 40 keyless calls of 60 MB kept about 1 GB until their 401s.
 */
describe("a body over 64 KiB without a live key", () => {
  const BODY = Buffer.alloc(200 * 1024, 0x20);
  const jwks = () => toJwks(file.server.ctx.signingKeys);

  it.each(["/v1/moderate", "/v1/moderations"])("%s: 401, signed over an empty body", async (path) => {
    const response = await fetch(`${file.server.httpUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": WRONG_KEY }, body: BODY });
    const body = new Uint8Array(await response.arrayBuffer());
    expect(response.status).toBe(401);
    const received = { status: response.status, headers: response.headers, body, jwks: jwks() };
    expect(await verifyModerationResponse({ ...received, requestBody: new Uint8Array() })).toMatchObject({ valid: true });
    expect(await verifyModerationResponse({ ...received, requestBody: BODY })).toMatchObject({ valid: false });
  });

  it("Connect: UNAUTHENTICATED, signed over an empty request", async () => {
    const response = await fetch(`${file.server.httpUrl}${MODERATE_PATH}`, { method: "POST", headers: { "content-type": "application/proto", "x-api-key": WRONG_KEY }, body: BODY });
    const error = (await response.json()) as { message: string };
    expect(response.headers.get("x-error-code")).toBe("invalid_api_key");
    const metadata = Object.fromEntries(response.headers.entries());
    const outcome = { ok: false as const, code: GRPC.UNAUTHENTICATED, message: error.message };
    expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata, jwks: jwks() })).toMatchObject({ valid: true });
  });

  it("gRPC: UNAUTHENTICATED", async () => {
    const answer = await postH2(file.server.grpcUrl, MODERATE_PATH, { "content-type": "application/grpc+proto", "x-api-key": WRONG_KEY }, Buffer.concat([announcing(BODY.length), BODY]));
    expect(answer.grpcStatus).toBe(GRPC.UNAUTHENTICATED);
    expect(answer.metadata["x-error-code"]).toBe("invalid_api_key");
  });
});
