import { hash } from "node:crypto";

/**
 * The RFC 9530 field value of the SHA-256 digest of `data` (a string as its UTF-8 bytes):
 * `sha-256=:<base64>:`, what formatSha256DigestHeader writes for the digest's bytes. One-shot
 * (crypto.hash skips the Hash object createHash builds; Node ≥ 20.12), and the hash writes the
 * base64 itself: no Buffer for the digest and none to read back as text, about half the cost of
 * the two (every answer carries two digests).
 */
export function sha256DigestHeader(data: Uint8Array | string): string {
  return `sha-256=:${hash("sha256", data, "base64")}:`;
}
