import { request } from "node:http";
import { connect } from "node:http2";
import { describe, expect, it } from "vitest";
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
  { name: "OpenAI, POST /v1/moderations", contentType: "application/json", send: jsonRoute("/v1/moderations"), badBody: BAD_JSON, statuses: HTTP_STATUS },
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
 * Without a live key the server reads at most 64 KiB of a body (json-request.ts,
 * guard-request-body.ts): a caller that sends 100 KiB and keeps the body open gets its refusal
 * at once. Before, the server read on until the body ended (up to the 70 MB limit, held per call).
 */
describe("a body without a key is not read past 64 KiB", () => {
  const OPEN_BODY = Buffer.alloc(100 * 1024, 0x20);
  /** The same in a gRPC envelope that announces twice as much (within the limit). */
  const OPEN_ENVELOPE = Buffer.concat([announcing(OPEN_BODY.length * 2), OPEN_BODY]);

  /** Sends headers and OPEN_BODY over HTTP/1.1, never ends the body, and resolves with the answer's status and code. */
  const openH1 = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; code: string | undefined }>((resolve, reject) => {
      const req = request(`${file.server.httpUrl}${path}`, { method: "POST", headers: { ...headers, "transfer-encoding": "chunked" } }, (res) => {
        resolve({ status: res.statusCode ?? 0, code: res.headers["x-error-code"] as string | undefined });
        res.resume();
        req.destroy();
      });
      req.on("error", reject);
      req.write(/grpc/.test(headers["content-type"] ?? "") ? OPEN_ENVELOPE : OPEN_BODY);
    });

  it.each([
    ["/v1/moderate", "application/json", 401],
    ["/v1/moderations", "application/json", 401],
    [MODERATE_PATH, "application/proto", 401],
    [MODERATE_PATH, "application/grpc-web+proto", 200],
  ])("%s as %s", async (path, contentType, status) => {
    const answer = await openH1(path, { "content-type": contentType, "x-api-key": WRONG_KEY });
    // gRPC-Web answers HTTP 200 and puts the refusal in its trailers, which x-error-code also names.
    expect(answer.status).toBe(status);
    if (contentType !== "application/grpc-web+proto") expect(answer.code).toBe("invalid_api_key");
  });

  it("gRPC over HTTP/2", async () => {
    const session = connect(file.server.grpcUrl);
    try {
      const stream = session.request({ ":method": "POST", ":path": MODERATE_PATH, "content-type": "application/grpc+proto", te: "trailers" });
      // In the trailers, or in the headers of a trailers-only answer.
      const status = new Promise<unknown>((resolve) => {
        stream.on("response", (headers) => headers["grpc-status"] !== undefined && resolve(headers["grpc-status"]));
        stream.on("trailers", (trailers) => resolve(trailers["grpc-status"]));
      });
      stream.on("error", () => undefined);
      stream.write(OPEN_ENVELOPE);
      expect(Number(await status)).toBe(GRPC.UNAUTHENTICATED);
      stream.close();
    } finally {
      session.destroy();
    }
  });
});
