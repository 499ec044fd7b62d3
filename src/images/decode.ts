import sharp, { type Metadata } from "sharp";
import { ApiError } from "../errors/api-error.js";
import { checkAnimationDecodeBudget, DEFAULT_MAX_ANIMATION_DECODE_PIXELS } from "./animation-decode-budget.js";
import { checkContainer } from "./container-check.js";
import { decodeInTurn } from "./decode-slots.js";
import { MAX_IMAGE_BYTES } from "../base/limits.js";
import { parseDataUri } from "./data-uri.js";
import { MODEL_INPUT_SIZE, type DecodedImage } from "./decoded-image.js";
import { sampleFrameIndices } from "./frame-sampling.js";
import { SUPPORTED_MEDIA_TYPES, sniffImageType, type ImageMediaType } from "./sniff.js";
import { readWebpAnimationHeader } from "./webp-animation-header.js";

export interface DecodeLimits {
  /** Largest decoded size in bytes (the API's 5 MiB). */
  maxBytes: number;
  /** Largest width × height of one frame: a guard against decompression bombs. */
  maxPixels: number;
  /**
   * Longest side: JPEG, GIF and WebP cannot pass 65,535 pixels, a PNG can, and libvips pays per row:
   * a 1 × 40,000,000 PNG (78 KB, inside the pixel limit) held a decoder thread 11-23 s, past the
   * timeout, which libvips checks too seldom on that shape to stop it.
   */
  maxSide: number;
  /** Largest width × height × frames of an animation: reaching a late frame decodes every earlier one. */
  maxAnimationPixels: number;
  /** Most frames of an animation: sharp cannot address a page past 100,000. */
  maxFrames: number;
  /** Frames of an animation that are scored, spread evenly, first and last included. */
  maxFramesSampled: number;
  /** Most pixels decoded to reach an animation's sampled frames, a GIF's counted at their lower cost (animation-decode-budget.ts). */
  maxAnimationDecodePixels: number;
  /** libvips stops a decode that runs longer than this. */
  timeoutSeconds: number;
}

// Every input is a one-off from an untrusted caller: libvips' operation cache would only hold memory.
sharp.cache(false);

/** libvips stops a decode (or the vision render, vision-render.ts) that runs longer. */
export const DECODE_TIMEOUT_SECONDS = 5;

const DEFAULT_DECODE_LIMITS: DecodeLimits = {
  maxBytes: MAX_IMAGE_BYTES,
  maxPixels: 40_000_000,
  maxSide: 65_535,
  maxAnimationPixels: 200_000_000,
  maxFrames: 100_000,
  maxFramesSampled: 4,
  maxAnimationDecodePixels: DEFAULT_MAX_ANIMATION_DECODE_PIXELS,
  timeoutSeconds: DECODE_TIMEOUT_SECONDS,
};

/** Decodes a data URI; `signal` stops a call's frames that have not started decoding. */
type ImageDecoder = (dataUri: string, signal?: AbortSignal) => Promise<DecodedImage>;

/** A data URI this long (about 750 KB of image) is decoded in an event-loop turn of its own. */
const LARGE_DATA_URI = 1024 * 1024;

/**
 * Strict decoding: data URI shape, base64, size (before decoding), magic bytes against the
 * declared type, header dimensions against the pixel limits (before any pixel is decoded), then
 * the sampled frames, each decoded in full so truncated data fails. Every failure is an ApiError
 * with a 4xx code; libvips runs on the libuv pool, off the event loop.
 */
export function createImageDecoder(limits: Partial<DecodeLimits> = {}): ImageDecoder {
  const config = { ...DEFAULT_DECODE_LIMITS, ...limits };
  return async (dataUri, signal) => {
    // Every image of a call starts decoding in the same turn: each large one waits for a turn of
    // its own, so that ten 5 MB images (about 15 ms of base64 each on Node 20) do not hold the
    // event loop for all ten at once.
    if (dataUri.length >= LARGE_DATA_URI) await new Promise<void>((resolve) => setImmediate(resolve));
    const { declaredType, bytes } = parseDataUri(dataUri, config.maxBytes);
    const mediaType = checkBytesMatch(declaredType, bytes);
    checkContainer(mediaType, bytes);
    // An animated WebP is measured from its chunks first: libvips' header read of one costs the
    // square of its frames.
    const webpAnimation = mediaType === "image/webp" ? readWebpAnimationHeader(bytes) : undefined;
    if (webpAnimation) checkHeaderLimits(mediaType, webpAnimation, config);
    const header = await readHeader(bytes);
    const frames = header.frames;
    const frameIndices = checkHeaderLimits(mediaType, header, config);
    const modelInput = await Promise.all(frameIndices.map((page) => decodeInTurn(() => renderModelInput(bytes, page, frames, config), signal)));
    return {
      mediaType,
      width: header.width,
      height: header.height,
      frames,
      framesSampled: frameIndices.length,
      frameIndices,
      modelInput,
      source: bytes,
    };
  };
}

/** Refuses a frame, animation or decoding work over the limits; returns the frames to sample. */
function checkHeaderLimits(mediaType: ImageMediaType, header: Header, config: DecodeLimits): number[] {
  const { frames } = header;
  const framePixels = header.width * header.height;
  if (framePixels > config.maxPixels) {
    throw new ApiError(
      "image_too_large",
      `The image is ${header.width}×${header.height} pixels (${framePixels}); the limit is ${config.maxPixels} pixels.`,
    );
  }
  if (Math.max(header.width, header.height) > config.maxSide) {
    throw new ApiError("image_too_large", `The image is ${header.width}×${header.height} pixels; the limit is ${config.maxSide} pixels on a side.`);
  }
  if (frames > config.maxFrames) {
    throw new ApiError("image_too_large", `The animation has ${frames} frames; the limit is ${config.maxFrames} frames.`);
  }
  if (framePixels * frames > config.maxAnimationPixels) {
    throw new ApiError(
      "image_too_large",
      `The animation has ${frames} frames of ${header.width}×${header.height} pixels; the limit is ${config.maxAnimationPixels} pixels over all frames.`,
    );
  }
  checkAnimationDecodeBudget(mediaType, header, config.maxFramesSampled, config.maxAnimationDecodePixels);
  return sampleFrameIndices(frames, config.maxFramesSampled);
}

function checkBytesMatch(declared: ImageMediaType, bytes: Buffer): ImageMediaType {
  const sniffed = sniffImageType(bytes);
  if (sniffed.kind === "unknown") {
    throw new ApiError("invalid_image", `The image data is not ${declared} as declared (its first bytes match no supported format).`);
  }
  if (sniffed.kind === "unsupported") {
    throw new ApiError(
      "unsupported_image_type",
      `The image data is ${sniffed.format}, which is not supported; send one of ${SUPPORTED_MEDIA_TYPES.join(", ")}.`,
    );
  }
  if (sniffed.mediaType !== declared) {
    throw new ApiError("invalid_image", `The image is declared as ${declared} but its data is ${sniffed.mediaType}.`);
  }
  return sniffed.mediaType;
}

interface Header {
  /** Display size after EXIF orientation. */
  width: number;
  height: number;
  frames: number;
}

async function readHeader(bytes: Buffer): Promise<Header> {
  let metadata: Metadata;
  try {
    // Reads the header only; no pixel is decoded, so a bomb is caught here cheaply.
    metadata = await sharp(bytes, { limitInputPixels: false, failOn: "truncated" }).metadata();
  } catch (error) {
    throw new ApiError("invalid_image", "The image data is corrupt or truncated and cannot be decoded.", { cause: error });
  }
  const width = metadata.autoOrient?.width ?? metadata.width;
  const height = metadata.autoOrient?.height ?? metadata.height;
  if (!width || !height) {
    throw new ApiError("invalid_image", "The image has no dimensions and cannot be decoded.");
  }
  const frames = metadata.pages && metadata.pages > 0 ? metadata.pages : 1;
  return { width, height, frames };
}

async function renderModelInput(bytes: Buffer, page: number, frames: number, config: DecodeLimits): Promise<Uint8Array> {
  const expected = MODEL_INPUT_SIZE * MODEL_INPUT_SIZE * 3;
  const started = performance.now();
  try {
    const { data, info } = await sharp(bytes, {
      // "error": a PNG whose pixel data fails its checksum is refused. Not "warning", which sharp
      // advises: it also refuses JPEGs that decode whole but warn of stray bytes before a marker,
      // common in camera and editor output. A JPEG cut short with its end marker put back decodes
      // as viewers show it, the missing rows grey. (libvips' message buffer is shared by threads,
      // so telling the two warnings apart by message misjudged concurrent images: 9 of 80.)
      failOn: "error",
      limitInputPixels: config.maxPixels,
      autoOrient: true,
      ...(frames > 1 ? { page, pages: 1 } : {}),
    })
      .timeout({ seconds: config.timeoutSeconds })
      // Transparent areas are shown on white by most viewers; judge what a viewer would see.
      .flatten({ background: "#ffffff" })
      .resize(MODEL_INPUT_SIZE, MODEL_INPUT_SIZE, { fit: "fill" })
      .toColourspace("srgb")
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3 || data.length !== expected) {
      throw new Error(`unexpected decoder output: ${info.width}×${info.height}×${info.channels}`);
    }
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  } catch (error) {
    throw sharpFailure(error, config.timeoutSeconds, "to decode", performance.now() - started);
  }
}

/**
 * A sharp pipeline's failure as the caller's error: past its time limit, or data it cannot decode.
 * A pipeline that ran its whole time limit was stopped by it, whatever the message says: libvips'
 * message buffer is shared by threads, and four such decodes at once read "Unknown error" or
 * another pipeline's words, so a valid image was answered as corrupt (found by an audit).
 */
export function sharpFailure(error: unknown, timeoutSeconds: number, doing: string, elapsedMs = 0): ApiError {
  if (elapsedMs >= timeoutSeconds * 1000 || (error instanceof Error && /timeout/i.test(error.message))) {
    return new ApiError("image_too_large", `The image took longer than ${timeoutSeconds} s ${doing}.`, { cause: error });
  }
  return new ApiError("invalid_image", "The image data is corrupt or truncated and cannot be decoded.", { cause: error });
}
