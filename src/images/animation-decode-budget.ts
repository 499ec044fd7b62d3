import { ApiError } from "../errors/api-error.js";
import { sampleFrameIndices } from "./frame-sampling.js";
import type { ImageMediaType } from "./sniff.js";

/**
 * Pixels decoded to score an animation's sampled frames, counted at a WebP's cost (GIF_PIXELS_PER_COUNTED):
 * at most about 1 s of decoder CPU on one core (figures below), where a still at the pixel limit takes
 * 0.15-0.5 s. Without it a 98 KB WebP of 2,000 frames of 316×316 (inside every other limit) took 4.3 s
 * (found by an audit).
 */
export const DEFAULT_MAX_ANIMATION_DECODE_PIXELS = 64_000_000;

/**
 * A frame costs this much whatever its size: 20,000 WebP frames of 16×16 (10 M pixels to reach the
 * four sampled ones) took 5.2 s, and WebP's cost per frame grows with the frames before it.
 */
export const MIN_FRAME_PIXELS = 128 * 128;

/**
 * A GIF pixel decodes about six times faster than a WebP one, so six count as one. Decoder CPU per
 * pixel counted (animationDecodePixels), one core, through decode.ts (bench/tmp/fix-f2b/cost.mts):
 * WebP lossy, noise in half of each frame: 15.5 ns; lossless, whole frames changing: 9.3-9.9 ns;
 * lossy, flat frames: 6.9 ns; either, a small box moving: 1.1-1.8 ns. GIF, whole frames changing
 * (flat or striped, the cheapest bytes): 2.2-2.6 ns; a small box moving: 0.16-0.43 ns. Full-frame
 * noise costs more per pixel (GIF 10 ns, lossy WebP 24-67 ns), but 5 MiB holds too few such frames
 * for it to pass about 1 s (GIF 0.09 s, WebP 0.85-0.98 s).
 */
export const GIF_PIXELS_PER_COUNTED = 6;

/**
 * The pixels libvips decodes to score an animation. GIF and WebP frames are drawn over the ones
 * before them, so reaching frame i decodes frames 0 to i, and each sampled frame is decoded on its
 * own (its own pipeline, its own decode slot): frame i costs i + 1 frames. Every frame counts at
 * least once, as reading the header visits each (where only the first frame is sampled).
 */
export function animationDecodePixels(frames: number, frameIndices: readonly number[], framePixels: number): number {
  const framesDecoded = frameIndices.reduce((sum, index) => sum + index + 1, 0);
  return Math.max(framesDecoded, frames) * Math.max(framePixels, MIN_FRAME_PIXELS);
}

/** Pixels decoded, counted at a WebP pixel's cost. */
function countedPixels(mediaType: ImageMediaType, pixels: number): number {
  return mediaType === "image/gif" ? Math.ceil(pixels / GIF_PIXELS_PER_COUNTED) : pixels;
}

/**
 * Refuses an animation whose sampled frames cost more than `maxPixels` to decode, from its header,
 * before any pixel is decoded. Refused rather than sampled among the early frames only: the answer
 * reports how many frames were scored, not which, and the closing frames are where content hides.
 */
export function checkAnimationDecodeBudget(
  mediaType: ImageMediaType,
  header: { width: number; height: number; frames: number },
  maxFramesSampled: number,
  maxPixels: number,
): void {
  if (header.frames < 2) return;
  const frameIndices = sampleFrameIndices(header.frames, maxFramesSampled);
  const pixels = animationDecodePixels(header.frames, frameIndices, header.width * header.height);
  const counted = countedPixels(mediaType, pixels);
  if (counted <= maxPixels) return;
  const asCounted = counted === pixels ? "" : `, counted as ${counted} (a GIF's pixels count one in ${GIF_PIXELS_PER_COUNTED}, as they decode that much faster)`;
  throw new ApiError(
    "image_too_large",
    `The animation has ${header.frames} frames of ${header.width}×${header.height} pixels; scoring ${frameIndices.length} of them, up to frame ` +
      `${frameIndices[frameIndices.length - 1]! + 1}, decodes ${pixels} pixels (reaching a frame decodes every frame before it, each counted as at ` +
      `least ${MIN_FRAME_PIXELS})${asCounted}; the limit is ${maxPixels} pixels decoded per animation.`,
  );
}
