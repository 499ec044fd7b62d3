import { describe, expect, it } from "vitest";
import { RPC_CODINGS, RPC_COMPRESSIONS } from "../../src/rpc/compressions.js";
import { emptyMessageBody, inflateMessage, isSupportedEncoding, SUPPORTED_ENCODINGS } from "../../src/rpc/decode-check.js";

// One table (compressions.ts RPC_CODINGS) gives Connect its codecs and the body guard its
// inflaters, its list of names and its empty bodies: a coding added there works on both sides.
describe("RPC_CODINGS: the one list of content codings", () => {
  const message = new TextEncoder().encode(JSON.stringify({ input: [{ type: "text", text: "hello ".repeat(500) }] }));
  const connectJson = { enveloped: false, json: true };

  it("names gzip, br and deflate, in the order Connect and a refusal list them", () => {
    expect(RPC_CODINGS.map((coding) => coding.name)).toEqual(["gzip", "br", "deflate"]);
    expect(RPC_COMPRESSIONS.map((compression) => compression.name)).toEqual(SUPPORTED_ENCODINGS);
    expect(RPC_CODINGS.map((coding) => coding.name)).toEqual(SUPPORTED_ENCODINGS);
  });

  it.each(RPC_CODINGS.map((coding) => [coding.name, coding] as const))("%s: the guard inflates what Connect compresses, and Connect what the guard compresses", async (name, coding) => {
    expect(isSupportedEncoding(name)).toBe(true);
    // Compared as plain bytes: Node's inflaters and connect-node's give Buffers, the deflate codec a Uint8Array.
    const bytes = (data: Uint8Array) => new Uint8Array(data);
    const byConnect = await coding.compression.compress(message);
    const inflated = await inflateMessage(byConnect, name, 1 << 20);
    expect(inflated.ok && bytes(inflated.bytes)).toEqual(message);
    expect(bytes(await coding.compression.decompress(new Uint8Array(coding.compressSync(message)), 1 << 20))).toEqual(message);
    expect(bytes(await coding.compression.decompress(emptyMessageBody(connectJson, name), 1 << 20))).toEqual(new TextEncoder().encode("{}"));
  });

  it("knows no other name, inherited ones included", () => {
    for (const name of ["identity", "GZIP", "zstd", "constructor", "__proto__", "toString"]) expect(isSupportedEncoding(name), name).toBe(false);
    expect(isSupportedEncoding(undefined)).toBe(true);
  });
});
