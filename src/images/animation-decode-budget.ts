import { ApiError } from "../errors/api-error.js";
import { sampleFrameIndices } from "./frame-sampling.js";

/**
 * Pixels decoded to score an animation's sampled frames, by default twice a still image's pixel
 * limit: about 0.2-0.8 s of decoder CPU, where a still at the limit takes 0.15-0.5 s. Without it a
 * 98 KB WebP of 2,000 frames of 316×316 (inside every other limit) took 4.3 s (found by an audit).
 */
export const DEFAULT_MAX_ANIMATION_DECODE_PIXELS = 80_000_000;

/**
 * A frame costs this much whatever its size: 20,000 WebP frames of 16×16 (10 M pixels to reach the
 * four sampled ones) took 5.2 s, and WebP's cost per frame grows with the frames before it.
 */
export const MIN_FRAME_PIXELS = 128 * 128;

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

/**
 * Refuses an animation whose sampled frames cost more than `maxPixels` to decode, from its header,
 * before any pixel is decoded. Refused rather than sampled among the early frames only: the answer
 * reports how many frames were scored, not which, and the closing frames are where content hides.
 */
export function checkAnimationDecodeBudget(header: { width: number; height: number; frames: number }, maxFramesSampled: number, maxPixels: number): void {
  if (header.frames < 2) return;
  const frameIndices = sampleFrameIndices(header.frames, maxFramesSampled);
  const pixels = animationDecodePixels(header.frames, frameIndices, header.width * header.height);
  if (pixels <= maxPixels) return;
  throw new ApiError(
    "image_too_large",
    `The animation has ${header.frames} frames of ${header.width}×${header.height} pixels; scoring ${frameIndices.length} of them, up to frame ` +
      `${frameIndices[frameIndices.length - 1]! + 1}, decodes ${pixels} pixels (reaching a frame decodes every frame before it, each counted as at ` +
      `least ${MIN_FRAME_PIXELS}); the limit is ${maxPixels} pixels decoded per animation.`,
  );
}
