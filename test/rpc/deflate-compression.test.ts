import { deflateSync, gzipSync, inflateSync } from "node:zlib";
import { create, fromJsonString, toJsonString } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema, ModerateResponseSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { RPC_COMPRESSIONS } from "../../src/rpc/compressions.js";
import { SUPPORTED_ENCODINGS } from "../../src/rpc/decode-check.js";
import { canonicalMessageBytes } from "../../src/signing/canonical-message.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { GRPC } from "../api/error-expectations.js";
import { envelope, postH2 } from "../support/raw-rpc.js";
import { useServerWithKey } from "../support/test-server.js";

// gRPC's "deflate" (zlib, RFC 1950) is a one-line channel option in grpc-core (Python, C++, Ruby)
// and grpc-js; it was refused as unsupported_encoding, failing every call on such a channel.

const PATH = "/moderation.v1.ModerationService/Moderate";
const file = useServerWithKey();
const jwks = () => toJwks(file.server.ctx.signingKeys);
// Ten items: an answer past Connect's 1 KiB floor, so that it is compressed too.
const request = create(ModerateRequestSchema, { input: Array.from({ length: 10 }, (_, i) => ({ type: "text", text: `you are an idiot, number ${i}` })) });
const requestBytes = canonicalMessageBytes(ModerateRequestSchema, request);

/** A Moderate call from grpc-js with deflate as its channel's compression; the answer's message bytes kept raw. */
function grpcJsDeflateCall(): Promise<{ error: grpc.ServiceError | null; bytes: Buffer | undefined; metadata: Headers }> {
  const options = { "grpc.default_compression_algorithm": grpc.compressionAlgorithms.deflate };
  const client = new grpc.Client(new URL(file.server.grpcUrl).host, grpc.credentials.createInsecure(), options);
  const metadata = new grpc.Metadata();
  metadata.set("x-api-key", file.key);
  const received = new Headers();
  const collect = (md: grpc.Metadata) => {
    for (const [k, v] of Object.entries(md.getMap())) if (!k.endsWith("-bin")) received.append(k, String(v));
  };
  return new Promise((resolve) => {
    const call = client.makeUnaryRequest(PATH, (b: Buffer) => b, (b: Buffer) => b, Buffer.from(requestBytes), metadata, (error, bytes) => {
      client.close();
      if (error) collect(error.metadata);
      resolve({ error, bytes, metadata: received });
    });
    call.on("metadata", collect);
    call.on("status", (status: grpc.StatusObject) => collect(status.metadata));
  });
}

describe("a request compressed with deflate", () => {
  it("is in the body guard's list and in Connect's (in one only, it is refused or left uninflated)", () => {
    expect(RPC_COMPRESSIONS.map((compression) => compression.name)).toEqual(SUPPORTED_ENCODINGS);
    expect(SUPPORTED_ENCODINGS).toContain("deflate");
  });

  it("over gRPC from grpc-js with deflate as the channel's compression: answered and signed", async () => {
    const { error, bytes, metadata } = await grpcJsDeflateCall();
    expect(error).toBeNull();
    expect(await verifyRpcResponse({ requestBytes, outcome: { ok: true, messageBytes: bytes! }, metadata, jwks: jwks() })).toMatchObject({ valid: true });
  });

  // Connect negotiates both ways from one list (rpc/compressions.ts): grpc-core and grpc-js, which
  // send "identity,deflate,gzip", now get deflate answers where they got gzip, and inflate them alike.
  it("over gRPC: answered in deflate when the client asks for it, signed over the inflated message", async () => {
    const headers = { "content-type": "application/grpc", te: "trailers", "grpc-encoding": "deflate", "grpc-accept-encoding": "identity,deflate,gzip", "x-api-key": file.key };
    const answer = await postH2(file.server.grpcUrl, PATH, headers, envelope(deflateSync(requestBytes), true));
    expect({ status: answer.grpcStatus, encoding: answer.metadata["grpc-encoding"] }).toEqual({ status: 0, encoding: "deflate" });
    expect(answer.body[0]).toBe(1);
    const message = inflateSync(answer.body.subarray(5, 5 + answer.body.readUInt32BE(1)));
    expect(await verifyRpcResponse({ requestBytes, outcome: { ok: true, messageBytes: message }, metadata: answer.metadata, jwks: jwks() })).toMatchObject({ valid: true });
  });

  it("over Connect, proto and JSON: answered and signed", async () => {
    const post = (contentType: string, body: Uint8Array) =>
      fetch(`${file.server.httpUrl}${PATH}`, { method: "POST", headers: { "content-type": contentType, "content-encoding": "deflate", "x-api-key": file.key }, body: deflateSync(body) });
    const proto = await post("application/proto", requestBytes);
    expect(proto.status).toBe(200);
    const protoBytes = new Uint8Array(await proto.arrayBuffer());
    expect(await verifyRpcResponse({ requestBytes, outcome: { ok: true, messageBytes: protoBytes }, metadata: proto.headers, jwks: jwks() })).toMatchObject({ valid: true });

    const json = await post("application/json", new TextEncoder().encode(toJsonString(ModerateRequestSchema, request)));
    expect(json.status).toBe(200);
    const received = fromJsonString(ModerateResponseSchema, await json.text());
    const messageBytes = canonicalMessageBytes(ModerateResponseSchema, received);
    expect(await verifyRpcResponse({ requestBytes, outcome: { ok: true, messageBytes }, metadata: json.headers, jwks: jwks() })).toMatchObject({ valid: true });
  });

  it("that is raw deflate, not zlib: invalid_request, signed", async () => {
    const headers = { "content-type": "application/grpc", te: "trailers", "grpc-encoding": "deflate", "x-api-key": file.key };
    const raw = deflateSync(requestBytes).subarray(2);
    const answer = await postH2(file.server.grpcUrl, PATH, headers, envelope(raw, true));
    expect({ status: answer.grpcStatus, code: answer.metadata["x-error-code"] }).toEqual({ status: GRPC.INVALID_ARGUMENT, code: "invalid_request" });
    const message = decodeURIComponent(answer.metadata["grpc-message"]!);
    expect(message).toMatch(/not valid deflate/);
    const outcome = { ok: false as const, code: GRPC.INVALID_ARGUMENT, message };
    expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata: answer.metadata, jwks: jwks() })).toMatchObject({ valid: true });
  });

  // Connect inflates what it reads itself (Health.Watch, reflection) with rpc/compressions.ts, within the public 64 KiB.
  it("on Health.Watch, read by Connect: served, and a bomb refused as a gzip one is", async () => {
    const watch = (encoding: string, message: Uint8Array) =>
      postH2(file.server.grpcUrl, "/grpc.health.v1.Health/Watch", { "content-type": "application/grpc", te: "trailers", "grpc-timeout": "500m", "grpc-encoding": encoding }, envelope(message, true));
    const served = await watch("deflate", deflateSync(new Uint8Array()));
    // SERVING (field 1 = 1), then the caller's deadline ends the stream.
    expect(served.body.subarray(0, 7)).toEqual(Buffer.from([0, 0, 0, 0, 2, 0x08, 0x01]));
    const zeros = Buffer.alloc(10 * 1024 * 1024);
    const [deflateBomb, gzipBomb] = await Promise.all([watch("deflate", deflateSync(zeros, { level: 9 })), watch("gzip", gzipSync(zeros, { level: 9 }))]);
    expect(gzipBomb.grpcStatus).toBe(GRPC.RESOURCE_EXHAUSTED);
    expect({ status: deflateBomb.grpcStatus, code: deflateBomb.metadata["x-error-code"] }).toEqual({ status: gzipBomb.grpcStatus, code: gzipBomb.metadata["x-error-code"] });
  });
});
