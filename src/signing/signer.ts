import type { KeyObject } from "node:crypto";
import { inspect } from "node:util";
import { createEd25519SignFunction } from "./ed25519-sign.js";

/**
 * Makes signatures with one private key; the key itself never leaves the object (except into
 * a compute worker, see privateKeyForWorkers). Asynchronous so that signing can run off the
 * event loop.
 */
export interface Signer {
  /** Key id that verifiers look up in the JWKS (the key's RFC 7638 thumbprint). */
  readonly keyId: string;
  sign(data: Uint8Array): Promise<Uint8Array>;
}

// Not a property of the signer, so that logging or serializing a Signer can never show it.
const privateKeys = new WeakMap<Signer, KeyObject>();

/** The private key behind a signer made here, for compute workers that sign on its behalf. */
export function privateKeyForWorkers(signer: Signer): KeyObject | undefined {
  return privateKeys.get(signer);
}

/** A signer with the same key id whose signatures are made elsewhere (a compute worker). */
export function createDelegatingSigner(keyId: string, sign: (data: Uint8Array) => Promise<Uint8Array>): Signer {
  const signer: Signer = { keyId, sign };
  Object.defineProperty(signer, inspect.custom, { value: () => `Signer(${keyId})` });
  return signer;
}

export function createEd25519Signer(privateKey: KeyObject, keyId: string): Signer {
  // createEd25519SignFunction refuses anything but an Ed25519 private key. The key lives in its
  // closure, not a property, so logging or JSON-serializing a Signer shows only its id.
  const signWithKey = createEd25519SignFunction(privateKey);
  const signer = createDelegatingSigner(keyId, async (data) => signWithKey(data));
  privateKeys.set(signer, privateKey);
  return signer;
}
