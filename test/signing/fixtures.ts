import { generateKeyPairSync } from "node:crypto";
import { createKeyRing, toJwks, type SigningKeyRing } from "../../src/signing/key-ring.js";
import { signHttpResponse } from "../../src/signing/http-signature.js";
import type { SignatureScope } from "../../src/signing/scope.js";

/** A fresh in-memory key ring (no files): one active key, optional retiring ones. */
export function makeKeyRing(retiring = 0): SigningKeyRing {
  return createKeyRing({
    active: { privateKey: generateKeyPairSync("ed25519").privateKey, createdAt: 1_800_000_000 },
    retiring: Array.from({ length: retiring }, (_, i) => ({ publicKey: generateKeyPairSync("ed25519").publicKey, createdAt: 1_700_000_000 + i })),
  });
}

export const REQUEST_BODY = new TextEncoder().encode('{"input":[{"type":"text","text":"you are wonderful"}]}');
export const RESPONSE_BODY = new TextEncoder().encode(
  '{"id":"modr_1","model":"m1","flagged":false,"results":[{"index":0,"type":"text","flagged":false,"categories":{"hate":{"score":0.01,"flagged":false}}}]}',
);
export const CONTENT_TYPE = "application/json; charset=utf-8";
export const CREATED = 1_800_000_123;

/** A signed JSON-route response, as the caller receives it. */
/** The scope fixtures sign for unless told otherwise (the route and account of a live caller). */
export const FIXTURE_SCOPE = { route: "/v1/moderate", account: "acct_fixture" };

export async function signedHttpResponse(ring: SigningKeyRing, overrides: { body?: Uint8Array; status?: number; requestBody?: Uint8Array; scope?: SignatureScope | undefined } = {}) {
  const body = overrides.body ?? RESPONSE_BODY;
  const status = overrides.status ?? 200;
  const headers = {
    "content-type": CONTENT_TYPE,
    ...(await signHttpResponse(ring.signer, {
      status,
      contentType: CONTENT_TYPE,
      body,
      requestBody: overrides.requestBody ?? REQUEST_BODY,
      created: CREATED,
      scope: "scope" in overrides ? overrides.scope : FIXTURE_SCOPE,
    })),
  };
  return { status, headers, body, requestBody: overrides.requestBody ?? REQUEST_BODY, jwks: toJwks(ring) };
}

export function flipBit(bytes: Uint8Array, index: number): Uint8Array {
  const copy = new Uint8Array(bytes);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
}

/** The string with the character at `index` changed to a different one. */
export function changeChar(value: string, index: number): string {
  const code = value.charCodeAt(index);
  return value.slice(0, index) + String.fromCharCode(code ^ 0x01) + value.slice(index + 1);
}
