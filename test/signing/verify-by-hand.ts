import { webcrypto } from "node:crypto";

/**
 * Verification the way a caller following docs/signing.md would do it, written against the
 * docs and not our code: regexes, a hand-built signature base, WebCrypto.
 */
export async function verifyByHand(input: {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  requestBody: Uint8Array;
  jwks: { keys: Array<{ kid: string; kty: string; crv: string; x: string }> };
}): Promise<boolean> {
  const { subtle } = webcrypto;
  const b64 = async (data: Uint8Array) => Buffer.from(await subtle.digest("SHA-256", data)).toString("base64");
  const h = input.headers;
  // 1. Both digests must match what we received and what we sent.
  if (h["content-digest"] !== `sha-256=:${await b64(input.body)}:`) return false;
  if (h["moderation-request-digest"] !== `sha-256=:${await b64(input.requestBody)}:`) return false;
  // 2. The signature parameters are the Signature-Input member value, verbatim.
  const params = /^sig1=(.*)$/.exec(h["signature-input"] ?? "")?.[1];
  const signature = /^sig1=:([A-Za-z0-9+/=]+):$/.exec(h.signature ?? "")?.[1];
  const keyid = /;keyid="([^"]+)"/.exec(params ?? "")?.[1];
  if (!params || !signature || !keyid) return false;
  const fixed = '"@status" "content-type" "content-digest" "moderation-request-digest"';
  const scope = [`(${fixed});`, `(${fixed} "moderation-route");`, `(${fixed} "moderation-route" "moderation-account");`].findIndex((list) => params.startsWith(list));
  if (scope < 0) return false;
  // 3. The RFC 9421 signature base, by hand: the fixed lines, then the scope's.
  const base =
    `"@status": ${input.status}\n` +
    `"content-type": ${h["content-type"]}\n` +
    `"content-digest": ${h["content-digest"]}\n` +
    `"moderation-request-digest": ${h["moderation-request-digest"]}\n` +
    (scope >= 1 ? `"moderation-route": ${h["moderation-route"]}\n` : "") +
    (scope >= 2 ? `"moderation-account": ${h["moderation-account"]}\n` : "") +
    `"@signature-params": ${params}`;
  const jwk = input.jwks.keys.find((k) => k.kid === keyid);
  if (!jwk) return false;
  const key = await subtle.importKey("jwk", { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, { name: "Ed25519" }, false, ["verify"]);
  return subtle.verify("Ed25519", key, Buffer.from(signature, "base64"), new TextEncoder().encode(base));
}
