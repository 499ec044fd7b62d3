import type { KeyObject } from "node:crypto";
import { createEd25519Signer, type Signer } from "./signer.js";
import { toPublicJwk } from "./ed25519-keys.js";
import type { Ed25519PublicJwk, Jwks, KeyStatus } from "./jwk.js";

/** A public key that verifiers may use, whether or not it still signs. */
export interface PublishedSigningKey {
  kid: string;
  /** Base64url of the raw 32-byte Ed25519 public key. */
  x: string;
  status: KeyStatus;
  /** Unix seconds; 0 when unknown (keys handed in through the environment). */
  createdAt: number;
}

/** The active signer plus every public key still published: what rotation manages. */
export interface SigningKeyRing {
  readonly signer: Signer;
  /** The active key first, then next keys, then retiring keys, newest first. */
  readonly publishedKeys: readonly PublishedSigningKey[];
}

interface KeyRingInit {
  active: { privateKey: KeyObject; createdAt: number };
  /** Published, never used to sign here: keys another replica may already sign with (SIGNING_NEXT_KEYS_FILE). */
  next?: { publicKey: KeyObject; createdAt: number }[];
  retiring: { publicKey: KeyObject; createdAt: number }[];
}

export function createKeyRing(init: KeyRingInit): SigningKeyRing {
  const active = toPublicJwk(init.active.privateKey);
  const published: PublishedSigningKey[] = [{ kid: active.kid, x: active.x, status: "active", createdAt: init.active.createdAt }];
  const add = (keys: readonly { publicKey: KeyObject; createdAt: number }[], status: KeyStatus) => {
    for (const key of [...keys].sort((a, b) => b.createdAt - a.createdAt)) {
      const jwk = toPublicJwk(key.publicKey);
      // The same key listed twice (e.g. the active key still in the next or retiring file) is
      // published once, under its first status: active, then next, then retiring.
      if (published.some((p) => p.kid === jwk.kid)) continue;
      published.push({ kid: jwk.kid, x: jwk.x, status, createdAt: key.createdAt });
    }
  };
  add(init.next ?? [], "next");
  add(init.retiring, "retiring");
  return { signer: createEd25519Signer(init.active.privateKey, active.kid), publishedKeys: published };
}

/** The JWKS document served at /.well-known/jwks.json. */
export function toJwks(ring: Pick<SigningKeyRing, "publishedKeys">): Jwks {
  return { keys: ring.publishedKeys.map(toJwk) };
}

export function toJwk(key: PublishedSigningKey): Ed25519PublicJwk {
  return { kty: "OKP", crv: "Ed25519", x: key.x, kid: key.kid, use: "sig", status: key.status, created_at: key.createdAt };
}
