import { ApiError } from "../errors/api-error.js";
import { MAX_IMAGE_BYTES } from "./limits.js";

const DATA_URI = /^data:([a-z]+\/[a-z0-9.+-]+);base64,/i;
const BASE64_BODY = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Checks an image data URI's form and decoded size from its length alone, so an oversize
 * or malformed image is refused before any bytes are decoded.
 */
export function parseImageDataUri(dataUri: string, index: number): { mediaType: string; base64: string; byteLength: number } {
  const match = DATA_URI.exec(dataUri);
  if (!match) {
    throw new ApiError("invalid_image", `input[${index}].base64 is not a base64 data URI (expected data:<media type>;base64,<data>).`);
  }
  const base64 = dataUri.slice(match[0].length);
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  const byteLength = Math.floor((base64.length * 3) / 4) - padding;
  if (byteLength > MAX_IMAGE_BYTES) {
    throw new ApiError("image_too_large", `input[${index}] is larger than ${MAX_IMAGE_BYTES / (1024 * 1024)} MiB once decoded.`);
  }
  if (base64.length === 0 || base64.length % 4 !== 0 || !BASE64_BODY.test(base64)) {
    throw new ApiError("invalid_image", `input[${index}].base64 does not hold valid base64 data.`);
  }
  return { mediaType: match[1]!.toLowerCase(), base64, byteLength };
}
