import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { tableCrc32 } from "../../src/images/crc32.js";
import { callJson } from "../support/protocol-clients.js";
import { useServerWithKey } from "../support/test-server.js";
import { dataUri } from "./fixtures.js";

// libpng refuses a PNG whose critical chunk (IHDR, IDAT) fails its CRC but only warns on an
// ancillary chunk's or IEND's, and those PNGs were scored (audit F4). docs/images.md promises
// failed checksums are refused.

type Chunk = { type: string; at: number; end: number };

/** The chunks of a PNG: where each starts (its length field) and ends (after its CRC). */
function chunksOf(png: Buffer): Chunk[] {
  const chunks: Chunk[] = [];
  for (let at = 8; at + 12 <= png.length; ) {
    const end = at + 12 + png.readUInt32BE(at);
    chunks.push({ type: png.toString("latin1", at + 4, at + 8), at, end });
    at = end;
  }
  return chunks;
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An 8×8 red PNG with an ancillary tEXt chunk after IHDR, besides any sharp writes (pHYs). */
async function pngWithText(): Promise<Buffer> {
  const plain = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#ff0000" } }).png().toBuffer();
  const ihdrEnd = chunksOf(plain)[0]!.end;
  return Buffer.concat([plain.subarray(0, ihdrEnd), chunk("tEXt", Buffer.from("Comment\0written for this test", "latin1")), plain.subarray(ihdrEnd)]);
}

const flipped = (png: Buffer, at: number): Buffer => {
  const copy = Buffer.from(png);
  copy[at] = copy[at]! ^ 0x01;
  return copy;
};

describe("a PNG failing any chunk's checksum is refused over /v1/moderate", () => {
  const server = useServerWithKey();
  const moderate = (png: Buffer) => callJson(server.server.httpUrl, { input: [{ type: "image", base64: dataUri("image/png", png) }] }, server.key);

  it("scores the intact image", async () => {
    const out = await moderate(await pngWithText());
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.body.results[0].image).toMatchObject({ media_type: "image/png", width: 8, height: 8 });
  });

  it("refuses a flipped bit anywhere in an ancillary chunk (type, data, CRC) or in IEND's CRC", async () => {
    const png = await pngWithText();
    const chunks = chunksOf(png);
    const ancillary = chunks.filter((c) => c.type.charCodeAt(0) >= 0x61); // lower-case first letter
    expect(ancillary.map((c) => c.type)).toContain("tEXt");
    const iend = chunks.find((c) => c.type === "IEND")!;
    // Past each chunk's length field (a changed length is a truncation, refused before).
    const positions = [...ancillary.flatMap((c) => Array.from({ length: c.end - c.at - 4 }, (_, k) => c.at + 4 + k)), ...[0, 1, 2, 3].map((k) => iend.end - 4 + k)];
    const answers = [];
    for (const at of positions) {
      const out = await moderate(flipped(png, at));
      answers.push(out.ok ? { at, status: 200 } : { at, status: out.status, code: out.code, message: out.message });
    }
    const refusal = { status: 400, code: "invalid_image", message: "input[0]: The image data is corrupt or truncated and cannot be decoded." };
    expect(answers).toEqual(positions.map((at) => ({ at, ...refusal })));
  });
});

describe("the portable CRC-32 (Node 20 releases before zlib.crc32)", () => {
  it("is zlib's", () => {
    for (const bytes of [Buffer.alloc(0), Buffer.from("IEND", "latin1"), randomBytes(1), randomBytes(4097), randomBytes(1 << 20)]) {
      expect(tableCrc32(bytes)).toBe(zlib.crc32(bytes));
    }
  });
});
