import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModerateRequestSchema, ModerateResponseSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { loadTrainedClassifier } from "../../src/classifiers/engine/index.js";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { ApiError } from "../../src/errors/api-error.js";
import { moderateAnswerJsonText } from "../../src/moderation/moderate-answer-json.js";

const moderateAnswerJson = (message: Parameters<typeof moderateAnswerJsonText>[0]): unknown => JSON.parse(moderateAnswerJsonText(message));
import { signedJsonFor, signedRpcFor } from "../../src/signing/signed-ahead.js";
import { createModerator } from "../../src/moderation/moderate.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { privateKeyForWorkers } from "../../src/signing/signer.js";
import { createComputePool, type ComputePool } from "../../src/workers/compute-pool.js";
import { createWorkerAnswerer, isTextOnly, type WorkerAnswerer } from "../../src/workers/worker-answers.js";
import { canonicalMessageBytes } from "../../src/signing/canonical-message.js";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { toBinary } from "@bufbuild/protobuf";
import { makeKeyRing } from "../signing/fixtures.js";

const CALLS = [
  ["one benign text", ["Thanks for the quick reply, see you at the meeting tomorrow."]],
  ["one harmful text", ["I will find you and kill you, you worthless idiot."]],
  ["several texts (combined layer)", ["you are so", "worthless, I will hurt you", "see you at noon"]],
  ["long text with one harmful sentence", ["A calm paragraph about gardening. ".repeat(60) + "I want to kill myself tonight."]],
  ["Unicode and zero-width characters", ["Ünïcödé, emoji 🙂 and\u200bzero-width i\u200bd\u200bi\u200bo\u200bt"]],
  // A span quoting a lone surrogate (valid in JSON text, not in UTF-8): the answer is still read back.
  ["a lone surrogate inside a flagged span", ["you are a worthless\udc00 idiot"]],
] as const;

const requestOf = (texts: readonly string[]) => create(ModerateRequestSchema, { input: texts.map((text) => ({ type: "text", text })) });
const NOW_MS = 1_800_000_123_456;
const RPC_ROUTE = "/moderation.v1.ModerationService/Moderate";

// One worker job answers a text-only call whole: the message the chain sees, the bytes sent
// and their signature must all agree, and match the event loop's answer.
describe("answers made whole in a compute worker", () => {
  const ring = makeKeyRing();
  const jwks = toJwks(ring);
  const inline = createModerator({ textClassifier: loadTrainedClassifier() });
  let pool: ComputePool;
  let answerer: WorkerAnswerer;
  beforeAll(async () => {
    pool = await createComputePool({
      size: 1,
      setup: { textClassifier: "trained", signingKey: privateKeyForWorkers(ring.signer)!, signingKeyId: ring.signer.keyId },
    });
    answerer = createWorkerAnswerer(pool, pool.classifierId!);
  });
  afterAll(async () => {
    await pool?.close();
  });

  it.each(CALLS)("JSON, %s: bytes render the message, the signature verifies, the answer equals the event loop's", async (_name, texts) => {
    const requestBody = new TextEncoder().encode(JSON.stringify({ input: texts.map((text) => ({ type: "text", text })) }));
    const message = await answerer.answer(requestOf(texts), { form: "json", requestBody, route: "/v1/moderate" }, NOW_MS, "acct_worker")!;
    const signed = signedJsonFor(message)!;
    expect(signed).toBeDefined();
    expect(signed.byteLength).toBe(Buffer.byteLength(signed.json, "utf8"));
    const sent = JSON.parse(signed.json);
    expect(sent).toEqual(moderateAnswerJson(message));

    const expected = create(ModerateResponseSchema, await inline(requestOf(texts)));
    expect({ ...sent, id: "" }).toEqual({ ...(moderateAnswerJson(expected) as object), id: "" });
    expect(message.id).toMatch(/^modr_/);

    const headers = { "content-type": "application/json; charset=utf-8", ...signed.headers };
    const scope = { route: "/v1/moderate", account: "acct_worker" };
    const verified = await verifyModerationResponse({ requestBody, status: 200, headers, body: Buffer.from(signed.json, "utf8"), jwks, expect: scope });
    expect(verified).toEqual({ valid: true, keyId: ring.signer.keyId, created: Math.floor(NOW_MS / 1000) });
    // Signed for the caller's route and account, as the event loop signs it: another account's does not verify.
    const asOther = await verifyModerationResponse({ requestBody, status: 200, headers, body: Buffer.from(signed.json, "utf8"), jwks, expect: { account: "acct_other" } });
    expect(asOther).toMatchObject({ valid: false, reason: 'the answer was signed for account "acct_worker", not "acct_other"' });
    // Bound to its own request: another body does not verify.
    const otherRequest = new TextEncoder().encode('{"input":[{"type":"text","text":"other"}]}');
    expect((await verifyModerationResponse({ requestBody: otherRequest, status: 200, headers, body: Buffer.from(signed.json, "utf8"), jwks })).valid).toBe(false);
  });

  it("refuses invalid calls with the same errors as the event loop, before any job", async () => {
    const empty = create(ModerateRequestSchema, { input: [{ type: "text", text: "" }] });
    const tooMany = requestOf(Array.from({ length: 11 }, () => "hello"));
    for (const request of [empty, tooMany]) {
      const fromLoop = await inline(request).catch((error: unknown) => error);
      for (const fromWorker of [
        await answerer.answer(request, { form: "json", requestBody: new Uint8Array(), route: "/v1/moderate" }, NOW_MS, undefined)!.catch((error: unknown) => error),
        await answerer.answer(request, { form: "rpc", requestBytes: new Uint8Array(), route: RPC_ROUTE }, NOW_MS, undefined)!.catch((error: unknown) => error),
      ]) {
        expect(fromWorker).toBeInstanceOf(ApiError);
        expect(fromWorker).toEqual(fromLoop);
      }
    }
  });

  it("is only for calls of text items only (answer-for.ts sends no other)", async () => {
    expect(isTextOnly(requestOf(["a", "b"]))).toBe(true);
    expect(isTextOnly(create(ModerateRequestSchema, { input: [{ type: "text", text: "a" }, { type: "image", base64: "data:" }] }))).toBe(false);
    expect(isTextOnly(create(ModerateRequestSchema, { input: [{ type: "video", text: "a" }] }))).toBe(false);
    const withImage = create(ModerateRequestSchema, { input: [{ type: "text", text: "a" }, { type: "image", base64: "data:image/png;base64,AAAA" }] });
    await expect(answerer.answer(withImage, { form: "rpc", requestBytes: new Uint8Array(), route: RPC_ROUTE }, NOW_MS, undefined)).rejects.toThrow("non-text items");
  });

  it.each(CALLS)("RPC, %s: the metadata signs the message's wire bytes for this request, the answer equals the event loop's", async (_name, texts) => {
    const request = requestOf(texts);
    const requestBytes = canonicalMessageBytes(ModerateRequestSchema, request);
    const message = await answerer.answer(request, { form: "rpc", requestBytes, route: RPC_ROUTE }, NOW_MS, "acct_worker")!;
    const metadata = signedRpcFor(message)!;
    expect(metadata).toBeDefined();
    expect(signedJsonFor(message)).toBeUndefined();
    // What gRPC and Connect+proto put on the wire (the message as is) is what was signed.
    const wireBytes = toBinary(ModerateResponseSchema, message);
    const verified = await verifyRpcResponse({ requestBytes, outcome: { ok: true, messageBytes: wireBytes }, metadata, jwks, expect: { route: RPC_ROUTE, account: "acct_worker" } });
    expect(verified).toEqual({ valid: true, keyId: ring.signer.keyId, created: Math.floor(NOW_MS / 1000) });
    const elsewhere = await verifyRpcResponse({ requestBytes, outcome: { ok: true, messageBytes: wireBytes }, metadata, jwks, expect: { route: "/v1/moderate" } });
    expect(elsewhere).toMatchObject({ valid: false });
    const otherRequest = canonicalMessageBytes(ModerateRequestSchema, requestOf(["other"]));
    expect((await verifyRpcResponse({ requestBytes: otherRequest, outcome: { ok: true, messageBytes: wireBytes }, metadata, jwks })).valid).toBe(false);

    const expected = create(ModerateResponseSchema, await inline(request));
    expect({ ...(moderateAnswerJson(message) as object), id: "" }).toEqual({ ...(moderateAnswerJson(expected) as object), id: "" });
  });

  it("leaves nothing signed ahead for messages it did not make", () => {
    expect(signedJsonFor(create(ModerateResponseSchema, { id: "modr_x" }))).toBeUndefined();
    expect(signedRpcFor(create(ModerateResponseSchema, { id: "modr_x" }))).toBeUndefined();
  });
});
