import { describe, expect, it } from "vitest";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { GRPC } from "../api/error-expectations.js";
import { postRefused, RAW_PROTOCOLS, type RawProtocol } from "../support/raw-moderate.js";
import { useServerWithKey } from "../support/test-server.js";

/**
 * A request of more items than the ten a request may hold is refused too_many_items from a count
 * of its items read without decoding it (rpc/wire-walk.ts, count-input-items.ts), on every RPC
 * protocol: 30 million empty items (60 MB) kept the event loop 25.6 s in the decoder before the
 * handler counted them. The answer is the handler's, word for word, but bound to an empty
 * request: the request was never decoded (docs/signing.md).
 */

const file = useServerWithKey();
const MILLION = 1_000_000;
const TOO_MANY = `A request may hold at most 10 input items; this one holds ${MILLION}.`;

/** A ModerateRequest of `count` empty items: field 1, length 0, in binary; `{}` in JSON. */
function emptyItems(count: number, json: boolean): Uint8Array {
  if (json) return new TextEncoder().encode(`{"input":[${"{},".repeat(count - 1)}{}]}`);
  const bytes = new Uint8Array(2 * count);
  for (let i = 0; i < bytes.length; i += 2) bytes[i] = 0x0a;
  return bytes;
}

describe.each(RAW_PROTOCOLS)("$name: a million items", (protocol: RawProtocol) => {
  it("is refused too_many_items, in the handler's words, signed over an empty request", async () => {
    const refusal = await postRefused(protocol, file.server, emptyItems(MILLION, protocol.json), { "x-api-key": file.key });
    expect(refusal).toMatchObject({ code: GRPC.INVALID_ARGUMENT, errorCode: "too_many_items", message: TOO_MANY });
    const outcome = { ok: false as const, code: refusal.code, message: refusal.message };
    const verified = await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata: refusal.metadata, jwks: toJwks(file.server.ctx.signingKeys) });
    expect(verified).toMatchObject({ valid: true });
  });
});

describe("too_many_items found before decoding", () => {
  it("is charged to the account like the handler's own refusal (after auth and the rate limit)", async () => {
    const { key } = await file.server.createAccount("free");
    const grpc = RAW_PROTOCOLS[0]!;
    const refusal = await postRefused(grpc, file.server, emptyItems(MILLION, false), { "x-api-key": key });
    expect(refusal.errorCode).toBe("too_many_items");
    expect(refusal.metadata["x-ratelimit-remaining"]).toBe("9");
  });

  it("applies to PolicyService.TestPolicy's items too (its field 2), before its draft is compiled", async () => {
    const grpc = RAW_PROTOCOLS[0]!;
    const items = emptyItems(MILLION, false).map((b) => (b === 0x0a ? 0x12 : b));
    const refusal = await postRefused(grpc, file.server, items, { "x-api-key": file.key }, "/moderation.v1.PolicyService/TestPolicy");
    expect(refusal).toMatchObject({ code: GRPC.INVALID_ARGUMENT, errorCode: "too_many_items", message: TOO_MANY });
  });
});

describe("fields the schema does not have, found before decoding", () => {
  // One text item ("hi"), then `count` unknown fields (field 99, varint 1), at the top level or inside the item.
  const withUnknown = (count: number, inside: boolean): Uint8Array => {
    const unknown = Buffer.from(Array.from({ length: count }, () => [0x98, 0x06, 0x01]).flat());
    const text = Buffer.from([0x0a, 0x04, 0x74, 0x65, 0x78, 0x74, 0x12, 0x02, 0x68, 0x69]); // type "text", text "hi"
    const item = inside ? Buffer.concat([text, unknown]) : text;
    const lengthBytes: number[] = [];
    for (let n = item.length; ; n >>>= 7) {
      if (n < 0x80) {
        lengthBytes.push(n);
        break;
      }
      lengthBytes.push((n & 0x7f) | 0x80);
    }
    return Buffer.concat([Buffer.from([0x0a, ...lengthBytes]), item, inside ? Buffer.alloc(0) : unknown]);
  };

  it("refuses more than 1,000 of them (an audit: 16 MB of them took 2.2 s to decode), at any depth; a few are read as protobuf allows", async () => {
    const grpc = RAW_PROTOCOLS[0]!;
    for (const inside of [false, true]) {
      const refusal = await postRefused(grpc, file.server, withUnknown(200_000, inside), { "x-api-key": file.key });
      expect(refusal).toMatchObject({ code: GRPC.INVALID_ARGUMENT, errorCode: "invalid_request", message: "The request holds 200000 fields moderation.v1.ModerateRequest does not have; at most 1000 are read." });
    }
    await expect(postRefused(grpc, file.server, withUnknown(10, true), { "x-api-key": file.key })).rejects.toThrow();
  });
});
