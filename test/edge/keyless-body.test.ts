import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { canonicalMessageBytes } from "../../src/signing/canonical-message.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { GRPC } from "../api/error-expectations.js";
import { postRefused, RAW_PROTOCOLS } from "../support/raw-moderate.js";
import { useServerWithKey } from "../support/test-server.js";

/**
 * No work is done for a caller before it is authenticated: an RPC body without a live key is read
 * to its end and dropped, never held, inflated or decoded (rpc/guard-request-body.ts). Its refusal
 * is bound to an empty request, as every refusal made before a request was decoded is
 * (docs/signing.md). Decoded to bind the refusal to it, 64 KiB of 32,000 empty items cost about
 * 15 ms of CPU per keyless call.
 */

const file = useServerWithKey();
const WRONG_KEY = `mod_AAAAAAAA_${"A".repeat(43)}`;

const request = create(ModerateRequestSchema, { input: [{ type: "text", text: "hello there" }] });
/** 32,000 empty items: within the 64 KiB of a keyless body that were decoded. */
const MANY_ITEMS = new Uint8Array(64_000).map((_, i) => (i % 2 === 0 ? 0x0a : 0));

describe.each(RAW_PROTOCOLS)("$name without a live key", (protocol) => {
  const message = (json: boolean) => (json ? new TextEncoder().encode('{"input":[{"type":"text","text":"hello there"}]}') : toBinary(ModerateRequestSchema, request));

  it.each([["no key", {}], ["a wrong key", { "x-api-key": WRONG_KEY }]] as const)("%s: UNAUTHENTICATED, signed over an empty request, not the one sent", async (_name, headers) => {
    const refusal = await postRefused(protocol, file.server, message(protocol.json), headers);
    expect(refusal.code).toBe(GRPC.UNAUTHENTICATED);
    const outcome = { ok: false as const, code: refusal.code, message: refusal.message };
    const check = (requestBytes: Uint8Array) => verifyRpcResponse({ requestBytes, outcome, metadata: refusal.metadata, jwks: toJwks(file.server.ctx.signingKeys) });
    expect(await check(new Uint8Array())).toMatchObject({ valid: true });
    expect(await check(canonicalMessageBytes(ModerateRequestSchema, request))).toMatchObject({ valid: false });
  });
});

it("gRPC: 32,000 empty items without a key are not decoded (the refusal is bound to no request)", async () => {
  const refusal = await postRefused(RAW_PROTOCOLS[0]!, file.server, MANY_ITEMS, {});
  expect(refusal).toMatchObject({ code: GRPC.UNAUTHENTICATED, errorCode: "missing_api_key" });
  const outcome = { ok: false as const, code: refusal.code, message: refusal.message };
  expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata: refusal.metadata, jwks: toJwks(file.server.ctx.signingKeys) })).toMatchObject({ valid: true });
});
