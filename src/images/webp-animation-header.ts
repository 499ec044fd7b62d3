/**
 * An animated WebP's canvas and frame count, read from its RIFF chunks (VP8X, then one ANMF per
 * frame) without libvips: libvips' own header read looks each frame up from the first, so it
 * grows with the square of the frames (40,000 frames of 1×1, 2 MB: 1.6 s of CPU before any
 * limit could refuse them). Undefined for a still WebP or one whose chunks do not parse (libvips
 * then judges it).
 */
export function readWebpAnimationHeader(bytes: Uint8Array): { width: number; height: number; frames: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fourcc = (at: number): string => String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
  let width = 0;
  let height = 0;
  let frames = 0;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const type = fourcc(at);
    const size = view.getUint32(at + 4, true);
    if (type === "VP8X" && size >= 10 && at + 18 <= bytes.length) {
      width = 1 + view.getUint16(at + 12, true) + (bytes[at + 14]! << 16);
      height = 1 + view.getUint16(at + 15, true) + (bytes[at + 17]! << 16);
    }
    if (type === "ANMF") frames++;
    at += 8 + size + (size & 1); // chunks are padded to an even length
  }
  return frames > 1 && width > 0 ? { width, height, frames } : undefined;
}
