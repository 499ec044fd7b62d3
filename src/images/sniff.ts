/** Formats the service decodes. */
export const SUPPORTED_MEDIA_TYPES = ["image/jpeg", "image/png", "image/webp", "image/gif"] as const;

export type ImageMediaType = (typeof SUPPORTED_MEDIA_TYPES)[number];

type SniffResult =
  | { kind: "supported"; mediaType: ImageMediaType }
  /** A real image format we recognise but do not accept (BMP, TIFF, AVIF, SVG...). */
  | { kind: "unsupported"; format: string }
  | { kind: "unknown" };

/**
 * Identifies the format from the magic bytes, so the declared media type can be checked against
 * what the bytes really are before any decoder sees them.
 */
export function sniffImageType(bytes: Uint8Array): SniffResult {
  const b = (i: number): number => bytes[i] ?? -1;
  const ascii = (start: number, text: string): boolean => {
    for (let i = 0; i < text.length; i++) if (b(start + i) !== text.charCodeAt(i)) return false;
    return true;
  };
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return supported("image/jpeg");
  if (b(0) === 0x89 && ascii(1, "PNG\r\n\x1a\n")) return supported("image/png");
  if (ascii(0, "GIF87a") || ascii(0, "GIF89a")) return supported("image/gif");
  if (ascii(0, "RIFF") && ascii(8, "WEBP")) return supported("image/webp");

  if (ascii(0, "BM")) return unsupported("BMP");
  if (ascii(0, "II*\0") || ascii(0, "MM\0*")) return unsupported("TIFF");
  if (ascii(4, "ftyp")) {
    const brand = String.fromCharCode(b(8), b(9), b(10), b(11));
    if (/^(avif|avis)$/.test(brand)) return unsupported("AVIF");
    if (/^(heic|heix|hevc|heim|heis|mif1|msf1)$/.test(brand)) return unsupported("HEIF");
  }
  if ((b(0) === 0xff && b(1) === 0x0a) || ascii(4, "JXL ")) return unsupported("JPEG XL");
  if (b(0) === 0 && b(1) === 0 && b(2) === 1 && b(3) === 0) return unsupported("ICO");
  if (ascii(0, "8BPS")) return unsupported("PSD");
  if (ascii(0, "%PDF")) return unsupported("PDF");
  const head = Buffer.from(bytes.subarray(0, 256)).toString("latin1").trimStart().toLowerCase();
  if (head.startsWith("<svg") || (head.startsWith("<?xml") && head.includes("<svg"))) return unsupported("SVG");
  return { kind: "unknown" };
}

function supported(mediaType: ImageMediaType): SniffResult {
  return { kind: "supported", mediaType };
}

function unsupported(format: string): SniffResult {
  return { kind: "unsupported", format };
}
