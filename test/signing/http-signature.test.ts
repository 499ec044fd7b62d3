import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { base64ToBytes, bytesToBase64, serializeDictionary } from "../../src/signing/structured-fields.js";
import { formatSha256DigestHeader, parseSha256DigestHeader } from "../../src/signing/digest-header.js";
import { sha256DigestHeader } from "../../src/signing/sha256.js";
import { changeChar, CREATED, FIXTURE_SCOPE, flipBit, makeKeyRing, signedHttpResponse } from "./fixtures.js";

const ring = makeKeyRing();
const good = await signedHttpResponse(ring);

describe("JSON-route response signatures", () => {
  it("verify for the request they answer, naming key and time", async () => {
    expect(good.headers["signature-input"]).toBe(
      `sig1=("@status" "content-type" "content-digest" "moderation-request-digest" "moderation-route" "moderation-account");created=${CREATED};keyid="${ring.signer.keyId}";alg="ed25519"`,
    );
    await expect(verifyModerationResponse(good)).resolves.toEqual({ valid: true, keyId: ring.signer.keyId, created: CREATED });
    await expect(verifyModerationResponse({ ...good, expect: FIXTURE_SCOPE })).resolves.toMatchObject({ valid: true });
  });

  // An audit's replay: the same bytes judged for two accounts (one with a policy) got two verdicts,
  // and either verified as the other's; a /v1/moderations answer verified as a /v1/moderate one.
  it("bind the route and the account: a forged or another caller's scope does not verify as this one's", async () => {
    const forged = { ...good, headers: { ...good.headers, "moderation-account": "acct_other" } };
    expect(await verifyModerationResponse({ ...forged, expect: { account: "acct_other" } })).toMatchObject({ valid: false, reason: "the signature does not match the signed fields" });
    expect(await verifyModerationResponse({ ...good, expect: { account: "acct_other" } })).toMatchObject({ valid: false, reason: 'the answer was signed for account "acct_fixture", not "acct_other"' });
    // An answer made before the key was known names no account: it is no answer for one.
    const early = await signedHttpResponse(ring, { scope: { route: "/v1/moderate" } });
    expect(await verifyModerationResponse({ ...early, expect: { route: "/v1/moderate" } })).toMatchObject({ valid: true });
    expect(await verifyModerationResponse({ ...early, expect: { account: "acct_fixture" } })).toMatchObject({ valid: false, reason: 'the signature does not cover "moderation-account"' });
  });

  it("trim only spaces and tabs around a field value, as RFC 9110 does", async () => {
    expect(await verifyModerationResponse({ ...good, headers: { ...good.headers, "content-type": `${good.headers["content-type"]} \t` } })).toMatchObject({ valid: true });
    // A line separator after the Content-Type signed is another value, not trailing space.
    expect(await verifyModerationResponse({ ...good, headers: { ...good.headers, "content-type": `${good.headers["content-type"]}\u2028` } })).toMatchObject({ valid: false });
    expect(await verifyModerationResponse({ ...good, headers: new Headers({ ...good.headers, "content-type": `${good.headers["content-type"]}\u00a0` }) })).toMatchObject({ valid: false });
  });

  it("answer missing input, a time that is not a number and a signature from the future with valid: false, not an exception", async () => {
    const loose = verifyModerationResponse as (input: unknown) => Promise<unknown>;
    expect(await loose({ ...good, body: undefined })).toMatchObject({ valid: false, reason: "body is missing" });
    expect(await loose({ ...good, headers: null })).toMatchObject({ valid: false, reason: "headers is missing" });
    expect(await verifyModerationResponse({ ...good, maxAgeSeconds: 60, now: () => Number.NaN })).toMatchObject({ valid: false });
    const fromTheFuture = { ...good, maxAgeSeconds: 60, now: () => (CREATED - 3600) * 1000 };
    expect(await verifyModerationResponse(fromTheFuture)).toMatchObject({ valid: false, reason: "the signature was created 3600 s in the future" });
    expect(await verifyModerationResponse({ ...good, maxAgeSeconds: 60, now: () => (CREATED - 10) * 1000 })).toMatchObject({ valid: true });
  });

  it("accept string bodies, fetch Headers and header arrays alike", async () => {
    const asText = { ...good, body: new TextDecoder().decode(good.body), requestBody: new TextDecoder().decode(good.requestBody) };
    expect((await verifyModerationResponse({ ...asText, headers: new Headers(good.headers) })).valid).toBe(true);
    const arrays = Object.fromEntries(Object.entries(good.headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    expect((await verifyModerationResponse({ ...good, headers: arrays })).valid).toBe(true);
  });

  it("fail when any byte of the body changes", async () => {
    for (let i = 0; i < good.body.length; i++) {
      const result = await verifyModerationResponse({ ...good, body: flipBit(good.body, i) });
      expect(result, `body byte ${i}`).toMatchObject({ valid: false, reason: "the body does not match Content-Digest" });
    }
  });

  it("fail when the verdict is flipped and Content-Digest recomputed to match", async () => {
    const forged = new TextEncoder().encode(new TextDecoder().decode(good.body).replace('"flagged":false', '"flagged":true'));
    const digest = `sha-256=:${createHash("sha256").update(forged).digest("base64")}:`;
    const result = await verifyModerationResponse({ ...good, body: forged, headers: { ...good.headers, "content-digest": digest } });
    expect(result).toMatchObject({ valid: false, reason: "the signature does not match the signed fields" });
  });

  it("fail for a different request: a signed verdict cannot be replayed for other content", async () => {
    for (let i = 0; i < good.requestBody.length; i++) {
      const result = await verifyModerationResponse({ ...good, requestBody: flipBit(good.requestBody, i) });
      expect(result, `request byte ${i}`).toMatchObject({ valid: false, reason: "the response was signed for a different request body" });
    }
    // Claiming the other request's digest in the header breaks the signature instead.
    const other = new TextEncoder().encode('{"input":[{"type":"text","text":"something hateful"}]}');
    const digest = `sha-256=:${createHash("sha256").update(other).digest("base64")}:`;
    const replayed = await verifyModerationResponse({ ...good, requestBody: other, headers: { ...good.headers, "moderation-request-digest": digest } });
    expect(replayed).toMatchObject({ valid: false, reason: "the signature does not match the signed fields" });
  });

  it("fail when the status changes", async () => {
    for (const status of [201, 400, 500]) expect((await verifyModerationResponse({ ...good, status })).valid).toBe(false);
  });

  it("fail when any character of a signed header or of Signature-Input changes", async () => {
    for (const name of ["content-type", "content-digest", "moderation-request-digest", "signature-input"] as const) {
      const value = good.headers[name];
      for (let i = 0; i < value.length; i++) {
        const result = await verifyModerationResponse({ ...good, headers: { ...good.headers, [name]: changeChar(value, i) } });
        expect(result.valid, `${name}[${i}] = ${changeChar(value, i)}`).toBe(false);
      }
    }
  });

  it("fail when the timestamp changes", async () => {
    const input = good.headers["signature-input"].replace(`created=${CREATED}`, `created=${CREATED + 3600}`);
    const result = await verifyModerationResponse({ ...good, headers: { ...good.headers, "signature-input": input } });
    expect(result).toEqual({ valid: false, reason: "the signature does not match the signed fields", keyId: ring.signer.keyId, created: CREATED + 3600 });
  });

  it("fail when any byte of the signature changes", async () => {
    const signature = base64ToBytes(good.headers.signature.slice("sig1=:".length, -1));
    expect(signature.length).toBe(64);
    for (let i = 0; i < signature.length; i++) {
      const tampered = `sig1=:${bytesToBase64(flipBit(signature, i))}:`;
      const result = await verifyModerationResponse({ ...good, headers: { ...good.headers, signature: tampered } });
      expect(result.valid, `signature byte ${i}`).toBe(false);
    }
  });

  it("fail with a key that is not published, and without signature headers", async () => {
    expect(await verifyModerationResponse({ ...good, jwks: { keys: [] } })).toMatchObject({
      valid: false,
      reason: `key ${ring.signer.keyId} is not in the JWKS (unknown or retired)`,
    });
    const otherRing = makeKeyRing();
    const wrongKey = { keys: [{ ...otherRingJwk(otherRing), kid: ring.signer.keyId }] };
    expect(await verifyModerationResponse({ ...good, jwks: wrongKey })).toMatchObject({ valid: false, reason: "the signature does not match the signed fields" });
    const { signature: _s, ...unsigned } = good.headers;
    expect(await verifyModerationResponse({ ...good, headers: unsigned })).toEqual({ valid: false, reason: "the response has no Signature header" });
  });

  it("fail when a signature leaves out a required component", async () => {
    const narrowed = good.headers["signature-input"].replace(' "moderation-request-digest"', "");
    const result = await verifyModerationResponse({ ...good, headers: { ...good.headers, "signature-input": narrowed } });
    expect(result).toMatchObject({ valid: false, reason: 'the signature does not cover "moderation-request-digest"' });
  });

  it("enforce maxAgeSeconds only when asked", async () => {
    const now = () => (CREATED + 600) * 1000;
    expect((await verifyModerationResponse({ ...good, maxAgeSeconds: 900, now })).valid).toBe(true);
    expect(await verifyModerationResponse({ ...good, maxAgeSeconds: 300, now })).toMatchObject({ valid: false, reason: "the signature is older than 300 s" });
  });
});

function otherRingJwk(r: ReturnType<typeof makeKeyRing>) {
  const [key] = r.publishedKeys;
  return { kty: "OKP" as const, crv: "Ed25519" as const, x: key!.x, kid: key!.kid };
}

describe("Content-Digest formatting", () => {
  it("writes exactly what the generic structured-field serializer writes, and parses back", () => {
    for (const text of ["", "a", "{\"id\":\"modr_1\"}", "ü".repeat(1000)]) {
      const digest = new Uint8Array(createHash("sha256").update(text).digest());
      const fast = formatSha256DigestHeader(digest);
      expect(fast).toBe(serializeDictionary(new Map([["sha-256", { item: { type: "bytes", value: digest }, params: [] }]])));
      expect(parseSha256DigestHeader(fast)).toEqual(digest);
    }
  });

  it("is what the one-shot digest header writes, over bytes and over strings as UTF-8", () => {
    for (const text of ["", "a", "{\"id\":\"modr_1\"}", "ü".repeat(1000), "🙂 \u2028", "x".repeat(100_000)]) {
      const bytes = new TextEncoder().encode(text);
      const expected = formatSha256DigestHeader(new Uint8Array(createHash("sha256").update(bytes).digest()));
      expect(sha256DigestHeader(bytes)).toBe(expected);
      expect(sha256DigestHeader(text)).toBe(expected);
      expect(sha256DigestHeader(Buffer.from(bytes).subarray(0))).toBe(expected);
    }
    // A view into a larger buffer hashes only its own bytes.
    const whole = Buffer.from("prefix-body-suffix");
    expect(sha256DigestHeader(whole.subarray(7, 11))).toBe(sha256DigestHeader("body"));
  });
});
