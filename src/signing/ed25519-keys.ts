import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import type { Ed25519PublicJwk } from "./jwk.js";

export class SigningKeyError extends Error {
  override readonly name = "SigningKeyError";
}

/** A fresh Ed25519 key pair; the private key as PKCS#8 PEM, ready to write to a 0600 file. */
export function generateEd25519KeyPair(): { privateKey: KeyObject; privateKeyPem: string } {
  const { privateKey } = generateKeyPairSync("ed25519");
  return { privateKey, privateKeyPem: privateKey.export({ format: "pem", type: "pkcs8" }).toString() };
}

/**
 * Parses a PKCS#8 PEM Ed25519 private key. Errors name `source` (a file path or env var
 * name) but never echo the input, which would put the key in logs.
 */
export function parsePrivateKeyPem(pem: string, source: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: "pem" });
  } catch {
    // Node asks for a passphrase for an encrypted key; the service has none to give.
    if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(pem)) {
      throw new SigningKeyError(`${source} is an encrypted private key; give it unencrypted ("-----BEGIN PRIVATE KEY-----", PKCS#8) and protect the file instead`);
    }
    throw new SigningKeyError(`${source} is not a PEM private key (expected "-----BEGIN PRIVATE KEY-----", PKCS#8)`);
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw new SigningKeyError(`${source} holds a ${key.asymmetricKeyType ?? "unknown"} key; response signing needs Ed25519`);
  }
  return key;
}

/** Every SPKI PEM public key in `text` (one or more "-----BEGIN PUBLIC KEY-----" blocks). */
export function parsePublicKeyPems(text: string, source: string): KeyObject[] {
  const blocks = text.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g) ?? [];
  if (blocks.length === 0) throw new SigningKeyError(`${source} holds no "-----BEGIN PUBLIC KEY-----" block`);
  return blocks.map((block, i) => {
    let key: KeyObject;
    try {
      key = createPublicKey({ key: block, format: "pem" });
    } catch {
      throw new SigningKeyError(`${source}: public key #${i + 1} is not valid SPKI PEM`);
    }
    if (key.asymmetricKeyType !== "ed25519") {
      throw new SigningKeyError(`${source}: public key #${i + 1} is ${key.asymmetricKeyType ?? "unknown"}, not Ed25519`);
    }
    return key;
  });
}

export function publicKeyPem(key: KeyObject): string {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  return publicKey.export({ format: "pem", type: "spki" }).toString();
}

/** The public half as a JWK whose kid is its RFC 7638 thumbprint. */
export function toPublicJwk(key: KeyObject): Ed25519PublicJwk {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  const { x } = publicKey.export({ format: "jwk" });
  if (typeof x !== "string") throw new SigningKeyError("not an Ed25519 key");
  return { kty: "OKP", crv: "Ed25519", x, kid: jwkThumbprint(x) };
}

/**
 * RFC 7638 thumbprint: base64url(SHA-256 of the required members in lexicographic order).
 * A derived kid lets anyone check that a kid really names the key it claims.
 */
function jwkThumbprint(x: string): string {
  return createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url");
}
