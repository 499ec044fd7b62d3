import { ApiError } from "../errors/api-error.js";
import { crc32 } from "./crc32.js";
import type { ImageMediaType } from "./sniff.js";

/**
 * Container-level completeness checks where the decoders forgive truncation: libvips decodes the
 * frames of a cut-off animated GIF it can still find, a WebP whose RIFF size exceeds the data, and
 * a PNG that stops after its pixels but before IEND, or whose ancillary chunk (pHYs, tEXt…) or
 * IEND fails its CRC (libpng only warns there). libjpeg already fails on a missing end.
 */
export function checkContainer(mediaType: ImageMediaType, bytes: Uint8Array): void {
  if (mediaType === "image/png") {
    const png = walkPng(bytes);
    if (!png.complete || !png.checksumsMatch) throw corrupt();
    // libvips decodes an APNG's default image only (sharp reports one page), which an animated
    // one need not show at all: a browser plays its fdAT frames instead. Judging the default image
    // and answering `frames: 1` let any animation through behind a harmless still (found by an audit).
    if (png.animated) {
      throw new ApiError("unsupported_image_type", "The image is an animated PNG (APNG), whose frames cannot be decoded here; send the animation as a GIF or WebP, or a still PNG.");
    }
  }
  if (mediaType === "image/gif" && !gifIsComplete(bytes)) throw corrupt();
  if (mediaType === "image/webp" && !webpIsComplete(bytes)) throw corrupt();
}

/** The refusal libvips's own decoding failures get (decode.ts), so every corrupt image reads alike. */
function corrupt(): ApiError {
  return new ApiError("invalid_image", "The image data is corrupt or truncated and cannot be decoded.");
}

/**
 * Walks the PNG chunks (length, type, data, CRC): complete when a whole IEND chunk is reached;
 * animated when an acTL chunk (APNG's animation control) comes before it. Stops at the first
 * chunk whose CRC-32 (over its type and data) is not the one it carries: checksumsMatch false.
 */
function walkPng(bytes: Uint8Array): { complete: boolean; animated: boolean; checksumsMatch: boolean } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = (at: number, name: string): boolean => [0, 1, 2, 3].every((k) => bytes[at + k] === name.charCodeAt(k));
  let animated = false;
  let i = 8; // signature
  while (i + 12 <= bytes.length) {
    const length = view.getUint32(i);
    const isEnd = type(i + 4, "IEND");
    if (type(i + 4, "acTL")) animated = true;
    const typeAt = i + 4;
    const crcAt = typeAt + 4 + length;
    i = crcAt + 4;
    if (i > bytes.length) return { complete: false, animated, checksumsMatch: true };
    if (crc32(bytes.subarray(typeAt, crcAt)) !== view.getUint32(crcAt)) return { complete: false, animated, checksumsMatch: false };
    if (isEnd) return { complete: true, animated, checksumsMatch: true };
  }
  return { complete: false, animated, checksumsMatch: true };
}

function webpIsComplete(bytes: Uint8Array): boolean {
  if (bytes.length < 12) return false;
  const riffSize = (bytes[4]! | (bytes[5]! << 8) | (bytes[6]! << 16) | (bytes[7]! << 24)) >>> 0;
  return riffSize + 8 <= bytes.length;
}

/** Walks the GIF block structure (without decompressing anything) and requires the trailer. */
function gifIsComplete(bytes: Uint8Array): boolean {
  const at = (i: number): number => (i < bytes.length ? bytes[i]! : -1);
  let i = 13; // header (6) + logical screen descriptor (7)
  if (bytes.length < i) return false;
  const flags = at(10);
  if (flags & 0x80) i += 3 * 2 ** ((flags & 0x07) + 1);
  const skipSubBlocks = (): boolean => {
    for (;;) {
      const size = at(i);
      if (size < 0) return false;
      i += 1 + size;
      if (size === 0) return true;
    }
  };
  for (;;) {
    const block = at(i);
    if (block === 0x3b) return true; // trailer
    if (block === 0x21) {
      i += 2; // introducer + label
      if (!skipSubBlocks()) return false;
    } else if (block === 0x2c) {
      const localFlags = at(i + 9);
      if (localFlags < 0) return false;
      i += 10;
      if (localFlags & 0x80) i += 3 * 2 ** ((localFlags & 0x07) + 1);
      i += 1; // LZW minimum code size
      if (!skipSubBlocks()) return false;
    } else {
      return false; // unknown block or end of data
    }
  }
}
