import { describe, expect, it } from "vitest";
import { webcrypto } from "node:crypto";
import { verifyByHand } from "./verify-by-hand.js";
import { CONTENT_TYPE, makeKeyRing, RESPONSE_BODY, signedHttpResponse } from "./fixtures.js";
import { toJwks } from "../../src/signing/key-ring.js";

const ring = makeKeyRing();
const response = await signedHttpResponse(ring);

describe("independent verification (WebCrypto, hand-built signature base)", () => {

  it("accepts a genuine response", async () => {
    expect(response.headers["content-type"]).toBe(CONTENT_TYPE);
    expect(await verifyByHand(response)).toBe(true);
  });

  it("rejects a flipped verdict, a re-dated signature and a different request", async () => {
    const forged = new TextEncoder().encode(new TextDecoder().decode(RESPONSE_BODY).replace('"flagged":false', '"flagged":true'));
    const forgedDigest = `sha-256=:${Buffer.from(await webcrypto.subtle.digest("SHA-256", forged)).toString("base64")}:`;
    expect(await verifyByHand({ ...response, body: forged, headers: { ...response.headers, "content-digest": forgedDigest } })).toBe(false);
    const redated = response.headers["signature-input"].replace(/created=(\d+)/, (_m, t: string) => `created=${Number(t) + 1}`);
    expect(await verifyByHand({ ...response, headers: { ...response.headers, "signature-input": redated } })).toBe(false);
    expect(await verifyByHand({ ...response, requestBody: new TextEncoder().encode("{}") })).toBe(false);
    expect(await verifyByHand({ ...response, jwks: toJwks(makeKeyRing()) })).toBe(false);
  });
});
