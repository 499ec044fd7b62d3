import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { GRPC } from "../api/error-expectations.js";
import { envelope, postH1, postH2, type RawRpcAnswer } from "../support/raw-rpc.js";
import { useServerWithKey } from "../support/test-server.js";

// An audit (fuzzing, F2): a deflate or br body with bytes after its compressed data was answered,
// as if they were not there (Node's inflaters stop at the end of the stream and drop the rest),
// while gzip's were refused invalid_request. Those bytes are in no request digest. Now every
// coding refuses them (compressions.ts), gzip's zero padding included.

const PATH = "/moderation.v1.ModerationService/Moderate";
const PROTO = toBinary(ModerateRequestSchema, create(ModerateRequestSchema, { input: [{ type: "text", text: "hello there" }] }));
const JSON_BODY = new TextEncoder().encode(JSON.stringify({ input: [{ type: "text", text: "hello there" }] }));
const TAIL = Buffer.from("tail");
const CODINGS: [string, (data: Uint8Array) => Buffer][] = [["deflate", deflateSync], ["br", brotliCompressSync], ["gzip", gzipSync]];

const file = useServerWithKey();

/**
 * invalid_request for `encoding`'s trailing `count` bytes, signed for the route over an empty
 * request. gunzip itself refuses bytes after a member that are not zero, as a member that is not gzip.
 */
async function expectRefused(answer: RawRpcAnswer, message: string, encoding: string, count: number): Promise<void> {
  expect(answer.metadata["x-error-code"]).toBe("invalid_request");
  const after = encoding === "gzip" && count === TAIL.length ? "" : ` (${count} bytes follow the end of the compressed data)`;
  expect(message).toBe(`The request body is not a valid moderation.v1.ModerateRequest message: the body is not valid ${encoding}${after}.`);
  const outcome = { ok: false as const, code: GRPC.INVALID_ARGUMENT, message };
  const jwks = toJwks(file.server.ctx.signingKeys);
  expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata: answer.metadata, jwks, expect: { route: PATH } })).toMatchObject({ valid: true });
}

describe.each(CODINGS)("a %s request body with bytes after its compressed data", (encoding, compress) => {
  const grpc = (message: Uint8Array) =>
    postH2(file.server.grpcUrl, PATH, { "content-type": "application/grpc", te: "trailers", "grpc-encoding": encoding, "x-api-key": file.key }, envelope(message, true));
  const connect = (body: Uint8Array) =>
    postH1(file.server.httpUrl, PATH, { "content-type": "application/json", "content-encoding": encoding, "x-api-key": file.key }, body);

  it("over gRPC: INVALID_ARGUMENT invalid_request, signed; without them, answered", async () => {
    expect((await grpc(compress(PROTO))).grpcStatus).toBe(0);
    const answer = await grpc(Buffer.concat([compress(PROTO), TAIL]));
    expect(answer.grpcStatus).toBe(GRPC.INVALID_ARGUMENT);
    await expectRefused(answer, decodeURIComponent(answer.metadata["grpc-message"]!), encoding, TAIL.length);
  });

  it("over Connect: 400 invalid_request, signed; without them, answered", async () => {
    expect((await connect(compress(JSON_BODY))).httpStatus).toBe(200);
    const answer = await connect(Buffer.concat([compress(JSON_BODY), TAIL]));
    expect(answer.httpStatus).toBe(400);
    const body = JSON.parse(answer.body.toString("utf8")) as { code: string; message: string };
    expect(body.code).toBe("invalid_argument");
    await expectRefused(answer, body.message, encoding, TAIL.length);
  });

  // gunzip stops at a zero byte after a member and dropped it, and any member after it.
  it("a single zero byte after it: refused too", async () => {
    const answer = await grpc(Buffer.concat([compress(PROTO), Buffer.alloc(1)]));
    expect(answer.grpcStatus).toBe(GRPC.INVALID_ARGUMENT);
    await expectRefused(answer, decodeURIComponent(answer.metadata["grpc-message"]!), encoding, 1);
  });
});

describe("gzip of several members (RFC 1952)", () => {
  it("is still read whole: each member is compressed data", async () => {
    const half = PROTO.byteLength >> 1;
    const body = Buffer.concat([gzipSync(PROTO.subarray(0, half)), gzipSync(PROTO.subarray(half))]);
    const answer = await postH2(file.server.grpcUrl, PATH, { "content-type": "application/grpc", te: "trailers", "grpc-encoding": "gzip", "x-api-key": file.key }, envelope(body, true));
    expect(answer.grpcStatus).toBe(0);
  });
});
