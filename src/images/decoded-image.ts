import type { ImageMediaType } from "./sniff.js";

/** Side of the square RGB input the embedded model takes. */
export const MODEL_INPUT_SIZE = 224;

/** An image item that passed every check, with what the classifiers need. */
export interface DecodedImage {
  /** The format found in the bytes (always equal to the declared one: a mismatch is rejected). */
  readonly mediaType: ImageMediaType;
  /** Display size, after the EXIF orientation is applied; for animations, the canvas size. */
  readonly width: number;
  readonly height: number;
  /** Total frames (1 unless animated). */
  readonly frames: number;
  /** Frames actually scored; `frameIndices.length`. */
  readonly framesSampled: number;
  /** Zero-based indices of the scored frames, ascending. */
  readonly frameIndices: readonly number[];
  /**
   * One MODEL_INPUT_SIZE² RGB buffer (row-major, 3 bytes per pixel) per sampled frame, already
   * oriented, flattened onto white and stretched to the square, which is how the model was trained.
   */
  readonly modelInput: readonly Uint8Array[];
  /** The original encoded bytes, kept for deep analysis, which re-renders the sampled frames. */
  readonly source: Buffer;
}

/** The facts the API reports about an image item (ImageInfo in the proto). */
export interface ImageInfo {
  mediaType: ImageMediaType;
  width: number;
  height: number;
  frames: number;
  framesSampled: number;
}

export function imageInfo(image: DecodedImage): ImageInfo {
  return {
    mediaType: image.mediaType,
    width: image.width,
    height: image.height,
    frames: image.frames,
    framesSampled: image.framesSampled,
  };
}
