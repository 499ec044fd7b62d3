import { describe, expect, it } from "vitest";
import { sampleFrameIndices } from "../../src/images/frame-sampling.js";
import { sniffImageType } from "../../src/images/sniff.js";

describe("sampleFrameIndices", () => {
  it("spreads samples evenly with the first and last frame", () => {
    expect(sampleFrameIndices(1, 4)).toEqual([0]);
    expect(sampleFrameIndices(2, 4)).toEqual([0, 1]);
    expect(sampleFrameIndices(10, 4)).toEqual([0, 3, 6, 9]);
    expect(sampleFrameIndices(100, 5)).toEqual([0, 25, 50, 74, 99]);
    expect(sampleFrameIndices(7, 1)).toEqual([0]);
  });

  it("refuses nonsense", () => {
    expect(() => sampleFrameIndices(0, 4)).toThrow(RangeError);
    expect(() => sampleFrameIndices(3, 0)).toThrow(RangeError);
  });
});

describe("sniffImageType", () => {
  const bytes = (...parts: Array<string | number[]>) =>
    Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p))));

  it("recognises the supported formats by their magic bytes", () => {
    expect(sniffImageType(bytes([0xff, 0xd8, 0xff, 0xe0]))).toEqual({ kind: "supported", mediaType: "image/jpeg" });
    expect(sniffImageType(bytes([0x89], "PNG\r\n\x1a\n"))).toEqual({ kind: "supported", mediaType: "image/png" });
    expect(sniffImageType(bytes("GIF87a"))).toEqual({ kind: "supported", mediaType: "image/gif" });
    expect(sniffImageType(bytes("RIFF", [1, 2, 3, 4], "WEBPVP8 "))).toEqual({ kind: "supported", mediaType: "image/webp" });
  });

  it("names known formats it does not accept", () => {
    expect(sniffImageType(bytes([0, 0, 0, 0x1c], "ftypavif"))).toEqual({ kind: "unsupported", format: "AVIF" });
    expect(sniffImageType(bytes([0, 0, 0, 0x18], "ftypheic"))).toEqual({ kind: "unsupported", format: "HEIF" });
    expect(sniffImageType(bytes("%PDF-1.7"))).toEqual({ kind: "unsupported", format: "PDF" });
    expect(sniffImageType(bytes('  <?xml version="1.0"?><svg>'))).toEqual({ kind: "unsupported", format: "SVG" });
    expect(sniffImageType(bytes("RIFF", [1, 2, 3, 4], "WAVE"))).toEqual({ kind: "unknown" });
    expect(sniffImageType(new Uint8Array())).toEqual({ kind: "unknown" });
  });
});
