import sharp from "sharp";
import type { VisionImage } from "../providers/deep-analyzer.js";
import type { DecodedImage } from "./decoded-image.js";
import { DECODE_TIMEOUT_SECONDS, sharpFailure } from "./decode.js";
import { decodeInTurn } from "./decode-slots.js";

/** Longest side sent to a vision model: enough to read text in a meme, cheap in tokens. */
const VISION_MAX_SIDE = 1024;

/**
 * Re-encodes each sampled frame as an upright JPEG no larger than VISION_MAX_SIDE: providers
 * disagree on animated GIF and WebP support, and the original may be several MiB.
 */
export async function renderForVision(image: DecodedImage, signal?: AbortSignal, maxSide = VISION_MAX_SIDE): Promise<VisionImage[]> {
  return Promise.all(
    image.frameIndices.map((page) => decodeInTurn(async () => {
      const started = performance.now();
      try {
        // failOn "error", as the embedded model's decode: sharp's default ("warning") refused a JPEG
        // that decode had accepted (stray bytes before a marker, or cut short and closed with its
        // end marker), and the refusal reached the caller as a 500.
        const data = await sharp(image.source, { failOn: "error", autoOrient: true, ...(image.frames > 1 ? { page, pages: 1 } : {}) })
          .timeout({ seconds: DECODE_TIMEOUT_SECONDS })
          .flatten({ background: "#ffffff" })
          .resize(maxSide, maxSide, { fit: "inside", withoutEnlargement: true })
          .jpeg({ quality: 85 })
          .toBuffer();
        return { mediaType: "image/jpeg" as const, data };
      } catch (error) {
        throw sharpFailure(error, DECODE_TIMEOUT_SECONDS, "to prepare for deep analysis", performance.now() - started);
      }
    }, signal)),
  );
}
