import { crc32 } from "node:zlib";
import { deflateSync } from "node:zlib";
import sharp from "sharp";

/** Test images, all generated here: nothing is read from disk or the network. */

export function dataUri(mediaType: string, bytes: Buffer): string {
  return `data:${mediaType};base64,${bytes.toString("base64")}`;
}

export type Rgb = { r: number; g: number; b: number };

export function solid(width: number, height: number, colour: Rgb | string) {
  return sharp({ create: { width, height, channels: 3, background: colour } });
}

export const png = (width = 64, height = 48, colour: Rgb | string = "#3366cc") => solid(width, height, colour).png().toBuffer();
export const jpeg = (width = 64, height = 48, colour: Rgb | string = "#3366cc") => solid(width, height, colour).jpeg().toBuffer();
export const webp = (width = 64, height = 48, colour: Rgb | string = "#3366cc") => solid(width, height, colour).webp().toBuffer();
export const gif = (width = 64, height = 48, colour: Rgb | string = "#3366cc") => solid(width, height, colour).gif().toBuffer();

/** Frame i is a solid colour with red = FRAME_RED(i), so tests can tell which frames were used. */
export const frameRed = (i: number): number => Math.min(255, 10 + i * 24);

export async function animated(format: "gif" | "webp", frames: number, width = 40, height = 30): Promise<Buffer> {
  const strip = Buffer.alloc(width * height * frames * 3);
  for (let f = 0; f < frames; f++) {
    for (let p = 0; p < width * height; p++) {
      const o = (f * width * height + p) * 3;
      strip[o] = frameRed(f);
      strip[o + 1] = 40;
      strip[o + 2] = 200;
    }
  }
  const image = sharp(strip, { raw: { width, height: height * frames, channels: 3, pageHeight: height } });
  return format === "gif" ? image.gif({ delay: 100, dither: 0 }).toBuffer() : image.webp({ delay: 100, lossless: true }).toBuffer();
}

/** A JPEG stored as `width`×`height` with left half red and right half blue, and an EXIF orientation tag. */
export async function orientedJpeg(orientation: number, width = 120, height = 80): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      if (x < width / 2) raw[o] = 255;
      else raw[o + 2] = 255;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 95 }).withMetadata({ orientation }).toBuffer();
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/**
 * A decompression bomb: a tiny, well-formed PNG whose header claims width×height pixels (a few
 * hundred bytes that would need gigabytes once decoded).
 */
export function pngBomb(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  // The first rows of zeros; the rest is "missing", but a decoder would allocate for all of it.
  const idat = deflateSync(Buffer.alloc(Math.min(width + 1, 1 << 20) * 4));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", idat),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A GIF whose logical screen and only frame claim width×height pixels. */
export function gifBomb(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.write("GIF89a", 0, "latin1");
  header.writeUInt16LE(width, 6);
  header.writeUInt16LE(height, 8);
  header[10] = 0x80; // global colour table of 2 entries
  const palette = Buffer.from([0, 0, 0, 255, 255, 255]);
  const descriptor = Buffer.alloc(10);
  descriptor[0] = 0x2c;
  descriptor.writeUInt16LE(width, 5);
  descriptor.writeUInt16LE(height, 7);
  const pixels = Buffer.from([0x02, 0x02, 0x4c, 0x01, 0x00]); // LZW min code 2, one tiny sub-block
  return Buffer.concat([header, palette, descriptor, pixels, Buffer.from([0x3b])]);
}

/** A valid 1×1 animated GIF of `frames` frames (about 23 bytes each, built by hand: sharp is slow to write many). */
export function manyFrameGif(frames: number): Buffer {
  const head = Buffer.from([...Buffer.from("GIF89a", "latin1"), 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]);
  const loop = Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from("NETSCAPE2.0", "latin1"), 3, 1, 0, 0, 0]);
  // Graphic control (delay 1), image descriptor 1×1, LZW min code 2, one sub-block.
  const frame = Buffer.from([0x21, 0xf9, 4, 0, 1, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]);
  return Buffer.concat([head, loop, ...new Array<Buffer>(frames).fill(frame), Buffer.from([0x3b])]);
}

/** A 2×2 24-bit BMP: a real image in a format the service does not accept. */
export function bmp(): Buffer {
  const rowSize = 8; // 2 pixels × 3 bytes, padded to 4
  const pixels = Buffer.alloc(rowSize * 2, 0x7f);
  const header = Buffer.alloc(54);
  header.write("BM", 0, "latin1");
  header.writeUInt32LE(54 + pixels.length, 2);
  header.writeUInt32LE(54, 10);
  header.writeUInt32LE(40, 14);
  header.writeInt32LE(2, 18);
  header.writeInt32LE(2, 22);
  header.writeUInt16LE(1, 26);
  header.writeUInt16LE(24, 28);
  header.writeUInt32LE(pixels.length, 34);
  return Buffer.concat([header, pixels]);
}

/** RGB of pixel (x, y) in a 224² model input. */
export function pixelAt(frame: Uint8Array, x: number, y: number, size = 224): Rgb {
  const o = (y * size + x) * 3;
  return { r: frame[o]!, g: frame[o + 1]!, b: frame[o + 2]! };
}

/** Rows of a w×h RGB image of one colour, filter byte 0, deflated (a PNG's IDAT or an fdAT's data). */
function solidRows(width: number, height: number, [r, g, b]: readonly number[]): Buffer {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([r!, g!, b!], 1 + x * 3);
  return deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
}

/**
 * An animated PNG whose default image (IDAT) is not a frame of the animation: a browser plays the
 * fdAT frames and never shows it, while libvips decodes the default image only.
 */
export function apng(width: number, height: number, stillRgb: readonly number[], frameRgbs: readonly (readonly number[])[]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const actl = Buffer.alloc(8);
  actl.writeUInt32BE(frameRgbs.length, 0);
  const parts = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk("IHDR", ihdr), pngChunk("acTL", actl), pngChunk("IDAT", solidRows(width, height, stillRgb))];
  let sequence = 0;
  for (const rgb of frameRgbs) {
    const fctl = Buffer.alloc(26);
    fctl.writeUInt32BE(sequence++, 0);
    fctl.writeUInt32BE(width, 4);
    fctl.writeUInt32BE(height, 8);
    fctl.writeUInt16BE(1, 20); // delay 1/10 s
    fctl.writeUInt16BE(10, 22);
    const seq = Buffer.alloc(4);
    seq.writeUInt32BE(sequence++);
    parts.push(pngChunk("fcTL", fctl), pngChunk("fdAT", Buffer.concat([seq, solidRows(width, height, rgb)])));
  }
  parts.push(pngChunk("IEND", Buffer.alloc(0)));
  return Buffer.concat(parts);
}
