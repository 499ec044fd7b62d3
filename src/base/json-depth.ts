import { QUOTE, BACKSLASH, OPEN_ARRAY, OPEN_OBJECT, CLOSE_ARRAY, CLOSE_OBJECT } from "./json-bytes.js";

/**
 * Deepest JSON nesting a request body may have. The deepest body any route takes is OpenAI's
 * `{"input":[{"type":"image_url","image_url":{"url":"..."}}]}`, 4 levels; 32 leaves room for any
 * client's framing. Without a cap, one body of 70 MB of `[` (inside the size limit) kept
 * JSON.parse on the event loop for about 20 s, stalling every other caller.
 */
export const MAX_JSON_DEPTH = 32;


/**
 * Whether the JSON text in `bytes` (UTF-8) opens more than `max` arrays and objects inside one
 * another. Only brackets outside strings count; a string is skipped to its closing quote with a
 * native search, so a body of base64 images costs about what copying it does. It answers about
 * nesting only: malformed JSON is left for JSON.parse to report, and stops here at the first
 * bracket past `max`.
 */
export function nestsDeeperThan(bytes: Uint8Array, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === QUOTE) {
      i = closingQuote(bytes, i);
      if (i < 0) return false;
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** Index of the quote that closes the string opened at `open`, or -1 when it is never closed. */
export function closingQuote(bytes: Uint8Array, open: number): number {
  let at = open;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at < 0) return -1;
    // Escaped when an odd number of backslashes precede it.
    let slashes = 0;
    while (bytes[at - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
}
