import { describe, expect, it } from "vitest";
import { create, fromBinary, fromJsonString, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import {
  ModerateRequestSchema,
  ModerateResponseSchema,
  ModerationService,
} from "../../gen/moderation/v1/moderation_pb.js";
import { UpdatePolicyRequestSchema } from "../../gen/moderation/v1/policy_pb.js";
import { ApiError, toConnectError } from "../../src/errors/api-error.js";
import { createSigningInterceptor } from "../../src/interceptors/signing.js";
import { canonicalMessageBytes } from "../../src/signing/canonical-message.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { signRpcOutcome } from "../../src/signing/rpc-signature.js";
import { verifyConnectResult, verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { flipBit, makeKeyRing } from "./fixtures.js";

const ring = makeKeyRing();
const jwks = toJwks(ring);
const request = create(ModerateRequestSchema, { input: [{ type: "text", text: "hello" }] });
const requestBytes = canonicalMessageBytes(ModerateRequestSchema, request);

function responseWithCategories(order: string[]) {
  const categories = Object.fromEntries(order.map((id) => [id, { score: id.length / 100, flagged: false }]));
  return create(ModerateResponseSchema, { id: "modr_x", model: "m", results: [{ index: 0, type: "text", categories, models: ["m"] }] });
}

describe("canonical message bytes", () => {
  it("do not depend on map insertion order, and leave the caller's message alone", async () => {
    const a = responseWithCategories(["violence", "hate", "self_harm_intent", "self_harm_instructions"]);
    const b = responseWithCategories(["self_harm_instructions", "violence", "self_harm_intent", "hate"]);
    expect(toBinary(ModerateResponseSchema, a)).not.toEqual(toBinary(ModerateResponseSchema, b));
    expect(canonicalMessageBytes(ModerateResponseSchema, a)).toEqual(canonicalMessageBytes(ModerateResponseSchema, b));
    expect(Object.keys(a.results[0]!.categories)[0]).toBe("violence");
  });

  // Go, C++ and Python sort map keys by their UTF-8 bytes; UTF-16 order differs where a key above
  // U+FFFF meets one in U+E000-U+FFFF, and a verifier there built other bytes (found by an audit).
  it("sort map keys by their UTF-8 bytes, as deterministic serialization does elsewhere", () => {
    const keys = ["\u{1F600}", "\uE000", "z", "\uFFFD", "a", "\u{10000}"];
    const sorted = canonicalMessageBytes(ModerateResponseSchema, responseWithCategories(keys));
    const inUtf8Order = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect(inUtf8Order).toEqual(["a", "z", "\uE000", "\uFFFD", "\u{10000}", "\u{1F600}"]);
    expect(Object.keys(fromBinary(ModerateResponseSchema, sorted).results[0]!.categories)).toEqual(inUtf8Order);
  });

  // A map key "__proto__" (a policy's thresholds come from the caller) was dropped by the sort:
  // the request digest was then the one of the same request without it (found by an audit).
  it("keep a map key named __proto__", () => {
    const withKey = fromJsonString(UpdatePolicyRequestSchema, '{"rules":{"thresholds":{"__proto__":0.5,"hate":0.3}}}');
    const without = fromJsonString(UpdatePolicyRequestSchema, '{"rules":{"thresholds":{"hate":0.3}}}');
    const bytes = canonicalMessageBytes(UpdatePolicyRequestSchema, withKey);
    expect(bytes).not.toEqual(canonicalMessageBytes(UpdatePolicyRequestSchema, without));
    const back = fromBinary(UpdatePolicyRequestSchema, bytes).rules!.thresholds;
    expect(Object.keys(back)).toEqual(["__proto__", "hate"]);
    expect(Object.getOwnPropertyDescriptor(back, "__proto__")?.value).toBe(0.5);
  });

  it("survive a parse round trip, as a caller re-encoding a received message does", async () => {
    const message = responseWithCategories(["violence", "hate"]);
    const wire = canonicalMessageBytes(ModerateResponseSchema, message);
    expect(canonicalMessageBytes(ModerateResponseSchema, fromBinary(ModerateResponseSchema, wire))).toEqual(wire);
  });
});

const messageBytes = canonicalMessageBytes(ModerateResponseSchema, responseWithCategories(["hate"]));
const ok = await signRpcOutcome(ring.signer, { requestBytes, outcome: { ok: true, messageBytes }, created: 1_800_000_000 });
const err = await signRpcOutcome(ring.signer, {
  requestBytes,
  outcome: { ok: false, code: Code.Unauthenticated, message: "The API key is invalid or has been revoked.", errorCode: "invalid_api_key" },
  created: 1_800_000_000,
});
const okInput = { requestBytes, outcome: { ok: true as const, messageBytes }, metadata: ok, jwks };
const errInput = {
  requestBytes,
  outcome: { ok: false as const, code: Code.Unauthenticated, message: "The API key is invalid or has been revoked." },
  metadata: { ...err, "x-error-code": "invalid_api_key" },
  jwks,
};

describe("RPC signatures", () => {
  it("verify successes and errors, covering x-error-code on errors", async () => {
    expect(err["signature-input"]).toContain('("moderation-status" "x-error-code" "moderation-response-digest" "moderation-request-digest")');
    expect(await verifyRpcResponse(okInput)).toMatchObject({ valid: true, keyId: ring.signer.keyId });
    expect(await verifyRpcResponse(errInput)).toMatchObject({ valid: true });
  });

  it("fail when any byte of the response message or of the request changes", async () => {
    for (let i = 0; i < messageBytes.length; i++) {
      expect((await verifyRpcResponse({ ...okInput, outcome: { ok: true, messageBytes: flipBit(messageBytes, i) } })).valid, `message byte ${i}`).toBe(false);
    }
    for (let i = 0; i < requestBytes.length; i++) {
      const result = await verifyRpcResponse({ ...okInput, requestBytes: flipBit(requestBytes, i) });
      expect(result, `request byte ${i}`).toMatchObject({ valid: false, reason: "the response was signed for a different request" });
    }
  });

  it("fail when the status, error message or error code changes", async () => {
    expect(await verifyRpcResponse({ ...errInput, outcome: { ...errInput.outcome, code: Code.PermissionDenied } })).toMatchObject({
      valid: false,
      reason: "the signed status is not the status received (7)",
    });
    expect(await verifyRpcResponse({ ...errInput, outcome: { ...errInput.outcome, message: "ok, go ahead" } })).toMatchObject({ valid: false });
    expect(await verifyRpcResponse({ ...errInput, metadata: { ...errInput.metadata, "x-error-code": "forbidden" } })).toMatchObject({
      valid: false,
      reason: "the signature does not match the signed fields",
    });
    // An error signature cannot pass for a success, nor the other way round.
    expect((await verifyRpcResponse({ ...okInput, metadata: errInput.metadata })).valid).toBe(false);
  });
});

describe("createSigningInterceptor (in process, real interceptors, no socket)", () => {
  const transport = createRouterTransport(
    (router) =>
      router.service(ModerationService, {
        moderate: (req) => {
          if (req.input[0]?.text === "deny") throw toConnectError(new ApiError("forbidden", "Not for you."));
          return responseWithCategories(["violence", "hate"]);
        },
        listSigningKeys: () => ({ keys: [] }),
      }),
    { router: { interceptors: [createSigningInterceptor({ keys: ring, now: () => 1_800_000_000_000 })] } },
  );
  const client = createClient(ModerationService, transport);

  it("signs successes; the received message verifies via canonical re-encoding", async () => {
    let header = new Headers();
    const message = await client.moderate(request, { onHeader: (h) => (header = h) });
    expect(header.get("signature-input")).toContain("created=1800000000;");
    const result = await verifyConnectResult({ method: ModerationService.method.moderate, request, result: { message, header }, jwks });
    expect(result).toMatchObject({ valid: true, keyId: ring.signer.keyId });
    const other = create(ModerateRequestSchema, { input: [{ type: "text", text: "hello!" }] });
    expect(await verifyConnectResult({ method: ModerationService.method.moderate, request: other, result: { message, header }, jwks })).toMatchObject({ valid: false });
  });

  it("signs errors in their metadata", async () => {
    const denied = create(ModerateRequestSchema, { input: [{ type: "text", text: "deny" }] });
    const error = await client.moderate(denied).then(() => undefined, (e: unknown) => ConnectError.from(e));
    expect(error?.code).toBe(Code.PermissionDenied);
    expect(error?.metadata.get("moderation-status")).toBe(String(Code.PermissionDenied));
    expect(await verifyConnectResult({ method: ModerationService.method.moderate, request: denied, result: { error: error! }, jwks })).toMatchObject({ valid: true });
  });
});
