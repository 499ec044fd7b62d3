/** JWK / JWKS shapes for Ed25519 public keys (RFC 8037). Pure types, shared with the client verifier. */

/** "next" is published ahead of a rotation, so every replica lists a key before any signs with it. */
export type KeyStatus = "active" | "next" | "retiring";

export interface Ed25519PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  /** Base64url of the raw 32-byte public key. */
  x: string;
  /** RFC 7638 thumbprint of the key; also the `keyid` of every signature it makes. */
  kid: string;
  use?: "sig";
  /** Not a registered JWK member: "active" signs new responses, "next" will once servers switch to it, "retiring" only verifies old ones. */
  status?: KeyStatus;
  /** Not a registered JWK member: creation time, Unix seconds (0 when unknown). */
  created_at?: number;
}

export interface Jwks {
  keys: Ed25519PublicJwk[];
}

/** Picks the key for `kid` out of an untrusted JWKS document; other key types are ignored. */
export function findJwk(jwks: unknown, kid: string): Ed25519PublicJwk | undefined {
  if (typeof jwks !== "object" || jwks === null || !Array.isArray((jwks as { keys?: unknown }).keys)) return undefined;
  for (const key of (jwks as { keys: unknown[] }).keys) {
    if (isEd25519Jwk(key) && key.kid === kid) return key;
  }
  return undefined;
}

export function isEd25519Jwk(value: unknown): value is Ed25519PublicJwk {
  if (typeof value !== "object" || value === null) return false;
  const key = value as Record<string, unknown>;
  return (
    key.kty === "OKP" &&
    key.crv === "Ed25519" &&
    typeof key.x === "string" &&
    /^[A-Za-z0-9_-]{43}$/.test(key.x) &&
    typeof key.kid === "string" &&
    !("d" in key)
  );
}
