import { randomFillSync } from "node:crypto";

// Ids are drawn from a 4 KiB buffer of random bytes, refilled when used up: one getrandom call
// per few hundred ids instead of one per id, which showed on the request path (every
// moderation response gets one). The bytes are still the CSPRNG's; ids are unguessable, not
// secrets (secrets such as API keys and session tokens take randomBytes of their own).
const POOL_BYTES = 4096;
const ID_BYTES = 12;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/** Random, prefixed ids (`acct_…`, `key_…`, `modr_…`): unguessable, so knowing one grants nothing. */
export function newId(prefix: string): string {
  if (offset + ID_BYTES > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = `${prefix}_${pool.toString("base64url", offset, offset + ID_BYTES)}`;
  offset += ID_BYTES;
  return id;
}
