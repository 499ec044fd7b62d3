import { randomFillSync } from "node:crypto";

// One getrandom call per 4 KiB instead of one per response id: at thousands of requests per
// second, randomBytes(12) per call was a visible share of the request path.
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/** `bytes` cryptographically random bytes as base64url (unpredictable ids, not secrets). */
export function randomToken(bytes: number): string {
  if (bytes > POOL_BYTES) throw new RangeError(`randomToken: at most ${POOL_BYTES} bytes`);
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const token = pool.toString("base64url", offset, offset + bytes);
  offset += bytes;
  return token;
}
