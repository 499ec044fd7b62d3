import { createHash } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { canonicalMessageBytes } from "../../src/signing/canonical-message.js";
import { formatSha256DigestHeader } from "../../src/signing/digest-header.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { signConnectError } from "../../src/signing/sign-outcome.js";
import { toSignatureParamsList } from "../../src/signing/signature-base.js";
import { serializeByteSequenceMember, serializeInnerList } from "../../src/signing/structured-fields.js";
import { CONTENT_TYPE, CREATED, makeKeyRing, REQUEST_BODY, RESPONSE_BODY } from "../signing/fixtures.js";

// The client verifiers refuse what RFC 9421 and docs/signing.md rule out even when the signature
// over it checks out: a key holder (or a signer bug) could otherwise make a signature that says
// something other than what the caller reads. Each case below is signed by hand over exactly the
// base the verifier would build without its check, so only that check stands in the way.

const ring = makeKeyRing();
const jwks = toJwks(ring);
const sha256 = (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest());

/**
 * Signature headers over `lines` (component name and value, in order, duplicates and line breaks
 * kept as given), built the RFC 9421 way without the library's checks.
 */
async function forge(lines: [string, string][]): Promise<Record<string, string>> {
  const serialized = serializeInnerList(toSignatureParamsList({ components: lines.map(([name]) => name), created: CREATED, keyId: ring.signer.keyId, alg: "ed25519" }));
  const base = [...lines.map(([name, value]) => `"${name}": ${value}`), `"@signature-params": ${serialized}`].join("\n");
  const signature = await ring.signer.sign(Buffer.from(base, "utf8"));
  return { "signature-input": `sig1=${serialized}`, signature: serializeByteSequenceMember("sig1", signature) };
}

const contentDigest = formatSha256DigestHeader(sha256(RESPONSE_BODY));
const requestDigest = formatSha256DigestHeader(sha256(REQUEST_BODY));

async function verifyForged(lines: [string, string][], headers: Record<string, string>) {
  return verifyModerationResponse({ status: 200, headers: { ...headers, ...(await forge(lines)) }, body: RESPONSE_BODY, requestBody: REQUEST_BODY, jwks });
}

describe("the JSON-route verifier", () => {
  it("accepts the hand-made signature when nothing is wrong (the forge matches the verifier)", async () => {
    const headers = { "content-type": CONTENT_TYPE, "content-digest": contentDigest, "moderation-request-digest": requestDigest };
    const lines: [string, string][] = [["@status", "200"], ["content-type", CONTENT_TYPE], ["content-digest", contentDigest], ["moderation-request-digest", requestDigest]];
    expect(await verifyForged(lines, headers)).toMatchObject({ valid: true });
  });

  it("refuses a Content-Digest that holds only a prefix (31 bytes) of the body's digest", async () => {
    const truncated = formatSha256DigestHeader(sha256(RESPONSE_BODY).slice(0, 31));
    const headers = { "content-type": CONTENT_TYPE, "content-digest": truncated, "moderation-request-digest": requestDigest };
    const lines: [string, string][] = [["@status", "200"], ["content-type", CONTENT_TYPE], ["content-digest", truncated], ["moderation-request-digest", requestDigest]];
    expect(await verifyForged(lines, headers)).toEqual({ valid: false, reason: "the body does not match Content-Digest", keyId: ring.signer.keyId, created: CREATED });
  });

  it("refuses a covered value holding a line break (a component line slipped into the base)", async () => {
    const injected = `${CONTENT_TYPE}\n"x-injected": yes`;
    const headers = { "content-type": injected, "content-digest": contentDigest, "moderation-request-digest": requestDigest };
    const lines: [string, string][] = [["@status", "200"], ["content-type", injected], ["content-digest", contentDigest], ["moderation-request-digest", requestDigest]];
    expect(await verifyForged(lines, headers)).toMatchObject({ valid: false, reason: 'covered component "content-type" holds a line break' });
  });

  it("refuses a signature that covers one component twice (RFC 9421 section 2.5)", async () => {
    const headers = { "content-type": CONTENT_TYPE, "content-digest": contentDigest, "moderation-request-digest": requestDigest };
    const lines: [string, string][] = [["@status", "200"], ["content-type", CONTENT_TYPE], ["content-digest", contentDigest], ["content-digest", contentDigest], ["moderation-request-digest", requestDigest]];
    expect(await verifyForged(lines, headers)).toEqual({ valid: false, reason: "a component is covered twice" });
  });
});

describe("the RPC verifier", () => {
  const requestBytes = canonicalMessageBytes(ModerateRequestSchema, create(ModerateRequestSchema, { input: [{ type: "text", text: "hello" }] }));

  it("refuses an x-error-code the signature of an error does not cover", async () => {
    // A ConnectError not raised from ApiError carries no x-error-code, so its signature covers none.
    const error = await signConnectError(ring.signer, new ConnectError("something failed", Code.Internal), { requestBytes, nowMs: CREATED * 1000, scope: undefined });
    expect(error.metadata.get("signature-input")).not.toContain("x-error-code");
    const received = { requestBytes, outcome: { ok: false as const, code: error.code, message: error.rawMessage }, jwks };
    expect(await verifyRpcResponse({ ...received, metadata: error.metadata })).toMatchObject({ valid: true });
    // A man in the middle adds a code the caller's program would act on.
    const metadata = new Headers(error.metadata);
    metadata.set("x-error-code", "invalid_api_key");
    expect(await verifyRpcResponse({ ...received, metadata })).toMatchObject({ valid: false, reason: 'the signature does not cover "x-error-code"' });
  });
});
