import { hash } from "node:crypto";

/**
 * Digest headers computed elsewhere (a compute worker that parsed the body), by the bytes they
 * belong to: hashing a 65 MB request body again on the event loop took about 45 ms. Only bodies
 * of at least REMEMBERED_BYTES are looked up, so the usual small answer pays nothing for it.
 */
const remembered = new WeakMap<Uint8Array, string>();
const REMEMBERED_BYTES = 64 * 1024;

/**
 * The RFC 9530 field value of the SHA-256 digest of `data` (a string as its UTF-8 bytes):
 * `sha-256=:<base64>:`, what formatSha256DigestHeader writes for the digest's bytes. One-shot
 * (crypto.hash skips the Hash object createHash builds; Node ≥ 20.12), and the hash writes the
 * base64 itself: no Buffer for the digest and none to read back as text, about half the cost of
 * the two (every answer carries two digests).
 */
export function sha256DigestHeader(data: Uint8Array | string): string {
  if (typeof data !== "string" && data.length >= REMEMBERED_BYTES) {
    const known = remembered.get(data);
    if (known !== undefined) return known;
  }
  return `sha-256=:${hash("sha256", data, "base64")}:`;
}

/**
 * Records `header` as the digest of `data`, which must not change afterwards (a request body once
 * read never does). Smaller data is not recorded: sha256DigestHeader would not look it up.
 */
export function rememberDigestHeader(data: Uint8Array, header: string): void {
  if (data.length >= REMEMBERED_BYTES) remembered.set(data, header);
}
