import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { GRPC } from "../api/error-expectations.js";
import { useServerWithKey } from "../support/test-server.js";
import { envelope, postH2 } from "../support/raw-rpc.js";

// A request body that does not decode as a ModerateRequest is refused as invalid_request on every
// RPC protocol, signed, instead of Connect's own INTERNAL ("parse binary: premature EOF") or bare
// INVALID_ARGUMENT (guard-request-body.ts, decode-check.ts).

const PATH = "/moderation.v1.ModerationService/Moderate";
const MESSAGE = /^The request body is not a valid moderation\.v1\.ModerateRequest message: .+\.$/;
/** Field 1 (input) announced as 16 bytes long, with 1 byte present. */
const TRUNCATED = new Uint8Array([0x0a, 0x10, 0x0a]);
/** A text field holding a byte that is not UTF-8. */
const NOT_UTF8 = new Uint8Array([0x0a, 0x06, 0x0a, 0x01, 0x74, 0x12, 0x01, 0xff]);

interface Refusal { status: number; code: string | undefined; message: string; metadata: Record<string, string> }

const file = useServerWithKey();

async function expectSignedRefusal(refusal: Refusal, message: RegExp = MESSAGE): Promise<void> {
  expect(refusal).toMatchObject({ status: GRPC.INVALID_ARGUMENT, code: "invalid_request" });
  expect(refusal.message).toMatch(message);
  const outcome = { ok: false as const, code: refusal.status, message: refusal.message };
  const jwks = toJwks(file.server.ctx.signingKeys);
  expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata: refusal.metadata, jwks })).toMatchObject({ valid: true });
}

function grpcCall(bytes: Uint8Array): Promise<Refusal | "ok"> {
  const client = new grpc.Client(new URL(file.server.grpcUrl).host, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set("x-api-key", file.key);
  return new Promise((resolve) => {
    client.makeUnaryRequest(PATH, (b: Buffer) => b, (b: Buffer) => b, Buffer.from(bytes), metadata, (error: grpc.ServiceError | null) => {
      client.close();
      if (!error) return resolve("ok");
      const map = Object.fromEntries(Object.entries(error.metadata.getMap()).map(([k, v]) => [k, String(v)]));
      resolve({ status: error.code, code: map["x-error-code"], message: error.details, metadata: map });
    });
  });
}

describe("an undecodable request body", () => {
  it.each([["truncated", TRUNCATED], ["not UTF-8 in a string field", NOT_UTF8]])("over gRPC (%s): INVALID_ARGUMENT, invalid_request, signed", async (_name, bytes) => {
    const refusal = await grpcCall(bytes);
    if (refusal === "ok") throw new Error("expected a refusal");
    await expectSignedRefusal(refusal);
  });

  it("over gRPC-Web: the same, in the trailer frame", async () => {
    const response = await fetch(`${file.server.httpUrl}${PATH}`, {
      method: "POST",
      headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1", "x-api-key": file.key },
      body: Buffer.from(envelope(TRUNCATED)),
    });
    const body = new Uint8Array(await response.arrayBuffer());
    // Trailers-only answers put grpc-status in the headers; otherwise it is the last frame (flag 0x80).
    const trailers: Record<string, string> = Object.fromEntries(response.headers.entries());
    if (!("grpc-status" in trailers) && body.length > 5 && body[0] === 0x80) {
      for (const line of new TextDecoder().decode(body.subarray(5)).split("\r\n")) {
        const at = line.indexOf(":");
        if (at > 0) trailers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
    }
    await expectSignedRefusal({
      status: Number(trailers["grpc-status"]), code: trailers["x-error-code"], message: decodeURIComponent(trailers["grpc-message"] ?? ""), metadata: trailers,
    });
  });

  it.each([
    ["binary (application/proto)", "application/proto", TRUNCATED],
    // Moderate's JSON is refused in /v1/moderate's words for the same mistake (moderation/json-request.ts).
    ["JSON of the wrong shape (application/json)", "application/json", new TextEncoder().encode('{"input":[{"type":"text","text":{"not":"a string"}}]}'), /^input\[0\]\.text must be a string\.$/],
    // Connect's own decoder made the byte U+FFFD and judged the text; /v1/moderate refuses it.
    ["JSON with a byte that is not UTF-8 (application/json)", "application/json", Uint8Array.from([...new TextEncoder().encode('{"input":[{"type":"text","text":"a'), 0xff, ...new TextEncoder().encode('b"}]}')]), /^The request body is not valid JSON: it is not UTF-8 text \(JSON is sent as UTF-8\)\.$/],
    ["JSON with an encoded surrogate (application/json)", "application/json", Uint8Array.from([...new TextEncoder().encode('{"input":[{"type":"text","text":"a'), 0xed, 0xa0, 0xbd, ...new TextEncoder().encode('b"}]}')]), /^The request body is not valid JSON: it is not UTF-8 text/],
    // A mistake /v1/moderate does not make (it takes a lone surrogate): the decoder's own words.
    ["JSON with a lone surrogate escape (application/json)", "application/json", new TextEncoder().encode('{"input":[{"type":"text","text":"a\\ud83d"}]}'), MESSAGE],
    // Refused before it is parsed (json-depth.ts), not by the decoder after.
    ["JSON nested deeper than any request needs", "application/json", new TextEncoder().encode(`{"input":${"[".repeat(33)}${"]".repeat(33)}}`), /nests more than 32 levels deep/],
  ] as const)("over Connect, %s: HTTP 400, invalid_request, signed", async (_name, contentType, bytes, message?: RegExp) => {
    const response = await fetch(`${file.server.httpUrl}${PATH}`, { method: "POST", headers: { "content-type": contentType, "x-api-key": file.key }, body: Buffer.from(bytes) });
    expect(response.status).toBe(400);
    const error = (await response.json()) as { code: string; message: string };
    expect(error.code).toBe("invalid_argument");
    if (message) expect(error.message).toMatch(message);
    await expectSignedRefusal({
      status: GRPC.INVALID_ARGUMENT, code: response.headers.get("x-error-code") ?? undefined, message: error.message, metadata: Object.fromEntries(response.headers.entries()),
    }, message ?? MESSAGE);
  });

  it("over Connect to another service's JSON: where the JSON breaks, in /v1/moderate's words (protobuf-es's named no place)", async () => {
    const response = await fetch(`${file.server.httpUrl}/moderation.v1.PolicyService/UpdatePolicy`, {
      method: "POST", headers: { "content-type": "application/json", "x-api-key": file.key }, body: '{"scope":{}\n "rules":{}}',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/^The request body is not valid JSON: .*line 2, column 2/);
  });

  it("judges a compressed body after inflating it, as Connect does (gzip on Connect, a flagged gRPC envelope)", async () => {
    const { gzipSync } = await import("node:zlib");
    const connect = await fetch(`${file.server.httpUrl}${PATH}`, {
      method: "POST",
      headers: { "content-type": "application/proto", "content-encoding": "gzip", "x-api-key": file.key },
      body: gzipSync(TRUNCATED),
    });
    expect(connect.status).toBe(400);
    expect(connect.headers.get("x-error-code")).toBe("invalid_request");
    const inflated = gzipSync(Buffer.from([0x0a, 0x0d, 0x0a, 0x04, 0x74, 0x65, 0x78, 0x74, 0x12, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f]));
    const ok = await fetch(`${file.server.httpUrl}${PATH}`, {
      method: "POST",
      headers: { "content-type": "application/proto", "content-encoding": "gzip", "x-api-key": file.key },
      body: inflated,
    });
    expect(ok.status).toBe(200);
    // An envelope whose flag says "not compressed" is judged as it is, whatever grpc-encoding says.
    const plain = await fetch(`${file.server.httpUrl}${PATH}`, {
      method: "POST",
      headers: { "content-type": "application/grpc-web+proto", "grpc-encoding": "gzip", "x-grpc-web": "1", "x-api-key": file.key },
      body: Buffer.from(envelope(TRUNCATED)),
    });
    const trailer = new TextDecoder().decode(new Uint8Array(await plain.arrayBuffer()));
    expect(trailer).toMatch(/x-error-code: invalid_request/);
  });

  it("takes a Content-Type's parameters as the JSON routes do: any that say UTF-8 or nothing, not another charset", async () => {
    const post = (contentType: string) =>
      fetch(`${file.server.httpUrl}${PATH}`, { method: "POST", headers: { "content-type": contentType, "x-api-key": file.key }, body: JSON.stringify({ input: [{ type: "text", text: "hello there" }] }) });
    // Connect matched the header by pattern and answered 415 to each of these, which /v1/moderate accepts.
    for (const contentType of ['application/json; charset="utf-8"', "application/json ; charset=utf-8", "application/json; foo=bar", "application/json;", "Application/JSON; Charset=UTF-8"]) {
      expect((await post(contentType)).status, contentType).toBe(200);
    }
    expect((await post("application/json; charset=latin1")).status).toBe(415);
  });

  it("leaves well-formed bodies alone, unknown JSON fields included (Connect ignores them)", async () => {
    const response = await fetch(`${file.server.httpUrl}${PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": file.key },
      body: JSON.stringify({ input: [{ type: "text", text: "hello there" }], somethingNew: 1 }),
    });
    expect(response.status).toBe(200);
    expect(await grpcCall(new Uint8Array([0x0a, 0x0d, 0x0a, 0x04, 0x74, 0x65, 0x78, 0x74, 0x12, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f]))).toBe("ok");
  });
});

describe("a message compressed with an encoding the service does not inflate", () => {
  const ZSTD = /^The message is compressed with "zstd", which this service does not inflate: send it uncompressed, or with gzip, br or deflate\.$/;
  const jwks = () => toJwks(file.server.ctx.signingKeys);

  it("over Connect: 501 unsupported_encoding (UNIMPLEMENTED), signed, with or without a key", async () => {
    for (const key of [{ "x-api-key": file.key }, {}]) {
      const response = await fetch(`${file.server.httpUrl}${PATH}`, { method: "POST", headers: { "content-type": "application/proto", "content-encoding": "zstd", ...key }, body: TRUNCATED });
      expect(response.status).toBe(501);
      expect(response.headers.get("x-error-code")).toBe("unsupported_encoding");
      // What it does inflate, as Connect's own refusal names it, so a client can fall back.
      expect(response.headers.get("accept-encoding")).toBe("gzip,br,deflate");
      const body = (await response.json()) as { code: string; message: string };
      expect(body.code).toBe("unimplemented");
      expect(body.message).toMatch(ZSTD);
      const outcome = { ok: false as const, code: GRPC.UNIMPLEMENTED, message: body.message };
      expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata: response.headers, jwks: jwks() })).toMatchObject({ valid: true });
    }
  });

  // "constructor" and "__proto__" were taken for supported (looked up with `in`) and reached
  // Connect, which answered "unknown compression" in its own words: unsigned, no error code.
  it.each(["constructor", "__proto__"])("over Connect: %s is an encoding like any unknown one", async (name) => {
    const response = await fetch(`${file.server.httpUrl}${PATH}`, { method: "POST", headers: { "content-type": "application/json", "content-encoding": name, "x-api-key": file.key }, body: "{}" });
    expect(response.status).toBe(501);
    expect(response.headers.get("x-error-code")).toBe("unsupported_encoding");
    const body = (await response.json()) as { message: string };
    expect(body.message).toBe(`The message is compressed with "${name}", which this service does not inflate: send it uncompressed, or with gzip, br or deflate.`);
    const outcome = { ok: false as const, code: GRPC.UNIMPLEMENTED, message: body.message };
    expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata: response.headers, jwks: jwks() })).toMatchObject({ valid: true });
  });

  it("over gRPC-Web: UNIMPLEMENTED in the trailer frame, with the code", async () => {
    const response = await fetch(`${file.server.httpUrl}${PATH}`, {
      method: "POST",
      headers: { "content-type": "application/grpc-web+proto", "grpc-encoding": "zstd", "x-grpc-web": "1", "x-api-key": file.key },
      body: Buffer.from(envelope(TRUNCATED)),
    });
    const trailer = new TextDecoder().decode(new Uint8Array(await response.arrayBuffer()));
    expect(trailer).toMatch(new RegExp(`grpc-status: ${GRPC.UNIMPLEMENTED}`));
    expect(trailer).toMatch(/x-error-code: unsupported_encoding/);
    expect(trailer).toMatch(/grpc-accept-encoding: gzip,br,deflate/);
  });

  it("over gRPC: UNIMPLEMENTED naming gzip, br and deflate in grpc-accept-encoding (gRPC's compression spec)", async () => {
    const answer = await postH2(file.server.grpcUrl, PATH, { "content-type": "application/grpc", "grpc-encoding": "zstd", te: "trailers", "x-api-key": file.key }, envelope(TRUNCATED, true));
    expect({ status: answer.grpcStatus, code: answer.metadata["x-error-code"], accepted: answer.metadata["grpc-accept-encoding"] }).toEqual({
      status: GRPC.UNIMPLEMENTED,
      code: "unsupported_encoding",
      accepted: "gzip,br,deflate",
    });
  });

  it("reads compression names without regard to case, as content codings are (RFC 9110 8.4.1)", async () => {
    const { gzipSync } = await import("node:zlib");
    const hello = Buffer.from([0x0a, 0x0d, 0x0a, 0x04, 0x74, 0x65, 0x78, 0x74, 0x12, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f]);
    for (const name of ["GZIP", "Gzip", " gzip "]) {
      const connect = await fetch(`${file.server.httpUrl}${PATH}`, { method: "POST", headers: { "content-type": "application/proto", "content-encoding": name, "x-api-key": file.key }, body: gzipSync(hello) });
      expect(connect.status, name).toBe(200);
      // HTTP/2 drops a field value with surrounding spaces (RFC 9113 8.2.1 makes it malformed).
      if (name !== name.trim()) continue;
      const grpcAnswer = await postH2(file.server.grpcUrl, PATH, { "content-type": "application/grpc", "grpc-encoding": name, te: "trailers", "x-api-key": file.key }, envelope(gzipSync(hello), true));
      expect(grpcAnswer.grpcStatus, name).toBe(0);
    }
    const identity = await fetch(`${file.server.httpUrl}${PATH}`, { method: "POST", headers: { "content-type": "application/proto", "content-encoding": "IDENTITY", "x-api-key": file.key }, body: hello });
    expect(identity.status).toBe(200);
    // A damaged body compressed as "GZIP" gets the API's refusal (a code), not Connect's bare one.
    const damaged = await fetch(`${file.server.httpUrl}${PATH}`, { method: "POST", headers: { "content-type": "application/proto", "content-encoding": "GZIP", "x-api-key": file.key }, body: gzipSync(TRUNCATED) });
    expect({ status: damaged.status, code: damaged.headers.get("x-error-code") }).toEqual({ status: 400, code: "invalid_request" });
  });

  it("gzip, br and deflate are inflated", async () => {
    const { gzipSync, brotliCompressSync, deflateSync } = await import("node:zlib");
    const hello = Buffer.from([0x0a, 0x0d, 0x0a, 0x04, 0x74, 0x65, 0x78, 0x74, 0x12, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f]);
    for (const [encoding, body] of [["gzip", gzipSync(hello)], ["br", brotliCompressSync(hello)], ["deflate", deflateSync(hello)]] as const) {
      const response = await fetch(`${file.server.httpUrl}${PATH}`, { method: "POST", headers: { "content-type": "application/proto", "content-encoding": encoding, "x-api-key": file.key }, body });
      expect(response.status, encoding).toBe(200);
    }
  });
});
