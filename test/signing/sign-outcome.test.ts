import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { ModerateRequestSchema, ModerateResponseSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { ApiError, toConnectError } from "../../src/errors/api-error.js";
import { canonicalMessageBytes } from "../../src/signing/canonical-message.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { JSON_CONTENT_TYPE, signConnectError, signOutcome } from "../../src/signing/sign-outcome.js";
import { makeKeyRing, REQUEST_BODY } from "./fixtures.js";

const ring = makeKeyRing();
const jwks = toJwks(ring);
const nowMs = 1_800_000_000_500;
const request = create(ModerateRequestSchema, { input: [{ type: "text", text: "hello" }] });
const requestBytes = canonicalMessageBytes(ModerateRequestSchema, request);

describe("signOutcome", () => {
  it("signs a JSON answer over the text it returns, to be sent as it is", async () => {
    const json = '{"id":"modr_1","flagged":false,"note":"é"}';
    const signed = await signOutcome(ring.signer, { kind: "json", status: 200, json, requestBody: REQUEST_BODY, nowMs, scope: { route: "/v1/moderate", account: "acct_1" } });
    expect(signed.json).toBe(json);
    expect(signed.byteLength).toBe(Buffer.byteLength(json));
    const received = { status: 200, headers: { "content-type": JSON_CONTENT_TYPE, ...signed.headers }, body: Buffer.from(json), requestBody: REQUEST_BODY, jwks };
    expect(await verifyModerationResponse(received)).toMatchObject({ valid: true, created: 1_800_000_000 });
    // Nothing may change an answer after it is signed: one byte more and it no longer verifies.
    expect(await verifyModerationResponse({ ...received, body: Buffer.from(`${json} `) })).toMatchObject({ valid: false });
  });

  it("binds a JSON answer to an empty body when the request body was never read", async () => {
    const signed = await signOutcome(ring.signer, { kind: "json", status: 413, json: "{}", requestBody: undefined, nowMs, scope: { route: "/v1/moderate" } });
    const received = { status: 413, headers: { "content-type": JSON_CONTENT_TYPE, ...signed.headers }, body: Buffer.from("{}"), jwks };
    expect(await verifyModerationResponse({ ...received, requestBody: new Uint8Array() })).toMatchObject({ valid: true });
  });

  it("sorts an RPC answer's maps in place, so the bytes sent are the bytes signed", async () => {
    const categories = { violence: { score: 0.2, flagged: false }, hate: { score: 0.1, flagged: false } };
    const message = create(ModerateResponseSchema, { id: "modr_x", model: "m", results: [{ index: 0, type: "text", categories, models: ["m"] }] });
    const metadata = await signOutcome(ring.signer, { kind: "rpc-answer", schema: ModerateResponseSchema, message, requestBytes, nowMs, scope: undefined });
    expect(Object.keys(message.results[0]!.categories)).toEqual(["hate", "violence"]);
    const messageBytes = toBinary(ModerateResponseSchema, message);
    expect(await verifyRpcResponse({ requestBytes, outcome: { ok: true, messageBytes }, metadata, jwks })).toMatchObject({ valid: true });
  });

  it("signs a ConnectError as received, x-error-code included, into its metadata", async () => {
    const error = await signConnectError(ring.signer, toConnectError(new ApiError("invalid_api_key", "The API key is invalid or has been revoked.")), { requestBytes, nowMs, scope: { route: "/moderation.v1.ModerationService/Moderate" } });
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.metadata.get("signature-input")).toContain('"x-error-code"');
    const outcome = { ok: false as const, code: Code.Unauthenticated, message: error.rawMessage };
    expect(await verifyRpcResponse({ requestBytes, outcome, metadata: error.metadata, jwks })).toMatchObject({ valid: true });
  });
});

describe("sign-outcome.ts", () => {
  it("loads nothing of fastify or node:http, so a worker thread can import it", () => {
    const reached = new Set<string>();
    const bare = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const [, specifier] of fs.readFileSync(file, "utf8").matchAll(/\bfrom\s+["']([^"']+)["']/g)) {
        if (!specifier!.startsWith(".")) bare.add(specifier!);
        else if (!specifier!.includes("/gen/")) visit(path.resolve(path.dirname(file), specifier!.replace(/\.js$/, ".ts")));
      }
    };
    visit(path.resolve(import.meta.dirname, "../../src/signing/sign-outcome.ts"));
    expect([...bare].filter((name) => /fastify|^node:(http|http2|net)$/.test(name))).toEqual([]);
  });
});
