import { hash, randomBytes } from "node:crypto";

/**
 * Keys look like `mod_<prefix>_<secret>`. Only the SHA-256 of the whole key is stored,
 * plus the short prefix so people can tell their keys apart. A fast hash is enough here:
 * the secret is 32 random bytes, so there is nothing to brute-force the way a password is.
 */
const KEY_PATTERN = /^mod_[A-Za-z0-9]{8}_[A-Za-z0-9_-]{43}$/;

interface GeneratedKey {
  key: string;
  prefix: string;
  hash: string;
}

export function generateApiKey(): GeneratedKey {
  const prefix = randomBytes(6).toString("base64url").replace(/[-_]/g, "x").slice(0, 8);
  const secret = randomBytes(32).toString("base64url");
  const key = `mod_${prefix}_${secret}`;
  return { key, prefix: `mod_${prefix}`, hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return hash("sha256", key, "hex"); // one-shot: it runs on every request
}

/** Cheap shape check, so garbage never reaches the database. */
export function looksLikeApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}
