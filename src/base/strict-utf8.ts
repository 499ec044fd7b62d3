import { isUtf8 } from "node:buffer";

/**
 * UTF-8 to text as TextDecoder("utf-8", { fatal: true }) decodes it (invalid bytes and encoded
 * surrogates throw, a leading byte-order mark is dropped), without constructing a decoder per
 * request. What every JSON body is read with: the JSON routes' and the RPC routes' alike.
 */
export function decodeStrictUtf8(bytes: Uint8Array): string {
  if (!isUtf8(bytes)) throw new TypeError("not UTF-8");
  const hasBom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8", hasBom ? 3 : 0);
}
