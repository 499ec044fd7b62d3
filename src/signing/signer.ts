import { sign, type KeyObject } from "node:crypto";
import { inspect } from "node:util";

/** Makes signatures with one private key; the key itself never leaves the object. */
export interface Signer {
  /** Key id that verifiers look up in the JWKS (the key's RFC 7638 thumbprint). */
  readonly keyId: string;
  sign(data: Uint8Array): Uint8Array;
}

export function createEd25519Signer(privateKey: KeyObject, keyId: string): Signer {
  if (privateKey.type !== "private" || privateKey.asymmetricKeyType !== "ed25519") {
    throw new TypeError("createEd25519Signer needs an Ed25519 private key");
  }
  // The key lives in a closure, not a property, so logging or JSON-serializing a Signer shows only its id.
  const signer: Signer = {
    keyId,
    sign: (data) => new Uint8Array(sign(null, data, privateKey)),
  };
  Object.defineProperty(signer, inspect.custom, { value: () => `Signer(${keyId})` });
  return signer;
}
