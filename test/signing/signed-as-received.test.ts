import { describe, expect, it } from "vitest";
import { create, fromJsonString, toBinary } from "@bufbuild/protobuf";
import { ModerateRequestSchema, ModerateResponseSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { fetchJwks } from "../../src/client/fetch-jwks.js";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { canonicalMessageBytes } from "../../src/signing/canonical-message.js";
import { envelope, postH1, postH2, type RawRpcAnswer } from "../support/raw-rpc.js";
import { useServerWithKey } from "../support/test-server.js";

/**
 * The invariant next to src/signing/sign-outcome.ts, "nothing changes an answer after it is
 * signed", checked as a real client sees it: on every protocol, for answers and for errors, the
 * signature verifies over the exact bytes received on the socket, with the key the JWKS route
 * publishes. With compute workers (answers signed ahead in a worker thread) and without.
 */

const MODERATE_PATH = "/moderation.v1.ModerationService/Moderate";
const request = create(ModerateRequestSchema, { input: [{ type: "text", text: "you are an idiot" }, { type: "text", text: "really" }] });
const requestBytes = canonicalMessageBytes(ModerateRequestSchema, request);
const requestJson = '{"input":[{"type":"text","text":"you are an idiot"},{"type":"text","text":"really"}]}';

type Case = "answer" | "no key" | "bad body" | "wrong content type";
const CASES: readonly Case[] = ["answer", "no key", "bad body", "wrong content type"];

/** The bytes a case sends: the request, or one that is not a ModerateRequest (field 1 as a varint). */
const BAD_MESSAGE = new Uint8Array([0x08, 0x01]);

describe.each([
  ["with compute workers (signed ahead)", "1"],
  ["without compute workers", "0"],
])("%s", (_name, workerThreads) => {
  const ctx = useServerWithKey({ env: { WORKER_THREADS: workerThreads } });
  const jwks = () => fetchJwks(`${ctx.server.httpUrl}/.well-known/jwks.json`);
  const accountOf = async (key: string) => (await ctx.server.ctx.accounts.authenticate(key))!.accountId;
  const headersFor = (c: Case, contentType: string) => ({
    "content-type": c === "wrong content type" ? "text/plain" : contentType,
    ...(c === "no key" ? {} : { "x-api-key": ctx.key }),
  });

  describe.each([
    ["JSON, POST /v1/moderate", "/v1/moderate"],
    ["OpenAI, POST /v1/moderations", "/v1/moderations"],
  ])("%s", (_route, path) => {
    it.each(CASES)("%s: the signature covers the body received", async (c) => {
      const body = c === "bad body" ? '{"input": [' : requestJson;
      const response = await fetch(`${ctx.server.httpUrl}${path}`, { method: "POST", headers: headersFor(c, "application/json"), body });
      expect(response.status).toBe({ answer: 200, "no key": 401, "bad body": 400, "wrong content type": 415 }[c]);
      const received = { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: new Uint8Array(await response.arrayBuffer()) };
      const requestBody = new TextEncoder().encode(body);
      // Signed for this route, and for the caller's account once the chain found its key live.
      const account = c === "answer" || c === "bad body" ? await accountOf(ctx.key) : undefined;
      expect(received.headers["moderation-account"]).toBe(account);
      const scope = { route: path, ...(account ? { account } : {}) };
      expect(await verifyModerationResponse({ ...received, requestBody, jwks: await jwks(), expect: scope })).toMatchObject({ valid: true });
      // Not an answer of the other JSON route, nor of another account.
      const otherRoute = path === "/v1/moderate" ? "/v1/moderations" : "/v1/moderate";
      expect(await verifyModerationResponse({ ...received, requestBody, jwks: await jwks(), expect: { route: otherRoute } })).toMatchObject({ valid: false });
      expect(await verifyModerationResponse({ ...received, requestBody, jwks: await jwks(), expect: { account: "acct_someone_else" } })).toMatchObject({ valid: false });
    });

    it.each(["GET", "HEAD"])("405 to %s: signed, bound to no body, over the body it sends", async (method) => {
      const response = await fetch(`${ctx.server.httpUrl}${path}`, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("x-error-code")).toBe("method_not_allowed");
      const received = { status: 405, headers: Object.fromEntries(response.headers.entries()), body: new Uint8Array(await response.arrayBuffer()) };
      expect(await verifyModerationResponse({ ...received, requestBody: new Uint8Array(), jwks: await jwks() })).toMatchObject({ valid: true });
    });
  });

  it("a 405 of a path outside the API (DELETE /healthz): signed, naming no route", async () => {
    const response = await fetch(`${ctx.server.httpUrl}/healthz`, { method: "DELETE" });
    expect(response.status).toBe(405);
    expect(response.headers.get("moderation-route")).toBeNull();
    const received = { status: 405, headers: Object.fromEntries(response.headers.entries()), body: new Uint8Array(await response.arrayBuffer()) };
    expect(await verifyModerationResponse({ ...received, requestBody: new Uint8Array(), jwks: await jwks() })).toMatchObject({ valid: true });
  });

  it("an unknown route's 404: signed, bound to no body", async () => {
    const response = await fetch(`${ctx.server.httpUrl}/no/such/route`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(response.status).toBe(404);
    const received = { status: 404, headers: Object.fromEntries(response.headers.entries()), body: new Uint8Array(await response.arrayBuffer()) };
    expect(JSON.parse(new TextDecoder().decode(received.body))).toEqual({ error: { code: "not_found", message: "No route for POST /no/such/route." } });
    expect(await verifyModerationResponse({ ...received, requestBody: new Uint8Array(), jwks: await jwks() })).toMatchObject({ valid: true });
  });

  it.each([
    ["gRPC", "application/grpc", "h2"],
    ["gRPC-Web", "application/grpc-web+proto", "h1"],
  ] as const)("%s, a method the server does not have: UNIMPLEMENTED as gRPC answers it, unknown_method, signed", async (_protocol, contentType, transport) => {
    const post = transport === "h2" ? postH2 : postH1;
    const answer = await post(transport === "h2" ? ctx.server.grpcUrl : ctx.server.httpUrl, "/moderation.v1.ModerationService/Nope", { "content-type": contentType }, envelope(toBinary(ModerateRequestSchema, request)));
    expect(answer.httpStatus).toBe(200);
    expect(answer.body.byteLength).toBe(0);
    expect(answer.metadata["x-error-code"]).toBe("unknown_method");
    const outcome = errorReceived(answer, true);
    expect(outcome).toEqual({ ok: false, code: 12, message: "No RPC method /moderation.v1.ModerationService/Nope on this server." });
    expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata: answer.metadata, jwks: await jwks() })).toMatchObject({ valid: true });
    // Bound to what was read (nothing): not valid as the answer to the request's bytes.
    expect(await verifyRpcResponse({ requestBytes, outcome, metadata: answer.metadata, jwks: await jwks() })).toMatchObject({ valid: false });
  });

  describe.each([
    ["Connect, application/proto", "application/proto", "h1"],
    ["Connect, application/json", "application/json", "h1"],
    ["gRPC-Web", "application/grpc-web+proto", "h1"],
    ["gRPC", "application/grpc+proto", "h2"],
  ] as const)("%s", (_protocol, contentType, transport) => {
    const enveloped = contentType.startsWith("application/grpc");
    const json = contentType === "application/json";

    it.each(CASES)("%s: the signature covers the message or error received", async (c) => {
      const message = c === "bad body" ? (json ? new TextEncoder().encode('{"input": [') : BAD_MESSAGE) : json ? new TextEncoder().encode(requestJson) : toBinary(ModerateRequestSchema, request);
      const body = enveloped ? envelope(message) : message;
      const post = transport === "h2" ? postH2 : postH1;
      const answer = await post(transport === "h2" ? ctx.server.grpcUrl : ctx.server.httpUrl, MODERATE_PATH, headersFor(c, contentType), body);
      // Refusals made before any message was decoded are bound to an empty request; a call without a
      // key is one of them (nothing of its body is decoded).
      const boundTo = c === "answer" ? requestBytes : new Uint8Array();
      const outcome = c === "answer" ? { ok: true as const, messageBytes: answerBytes(answer, enveloped, json) } : errorReceived(answer, enveloped && c !== "wrong content type");
      if (c !== "answer") expect(outcome).toMatchObject({ code: { "no key": 16, "bad body": 3, "wrong content type": 3 }[c] });
      // Signed for the method, and for the account once the chain found the key live (the body
      // guard refuses a bad body before the chain runs).
      const scope = { route: MODERATE_PATH, ...(c === "answer" ? { account: await accountOf(ctx.key) } : {}) };
      const verified = await verifyRpcResponse({ requestBytes: boundTo, outcome, metadata: answer.metadata, jwks: await jwks(), expect: scope });
      expect(verified).toMatchObject({ valid: true });
      expect(await verifyRpcResponse({ requestBytes: boundTo, outcome, metadata: answer.metadata, jwks: await jwks(), expect: { route: "/v1/moderate" } })).toMatchObject({ valid: false });
    });
  });
});

/** The answer's message bytes as received: raw for proto (the envelope taken off), re-encoded canonically for JSON (docs/signing.md). */
function answerBytes(answer: RawRpcAnswer, enveloped: boolean, json: boolean): Uint8Array {
  expect(answer.grpcStatus ?? 0).toBe(0);
  const bytes = enveloped ? answer.body.subarray(5, 5 + answer.body.readUInt32BE(1)) : answer.body;
  if (!json) return new Uint8Array(bytes);
  return canonicalMessageBytes(ModerateResponseSchema, fromJsonString(ModerateResponseSchema, bytes.toString("utf8")));
}

/** The status code and message as a client decodes them: grpc-status / grpc-message, or Connect's JSON error body. */
function errorReceived(answer: RawRpcAnswer, enveloped: boolean): { ok: false; code: number; message: string } {
  if (enveloped) return { ok: false, code: answer.grpcStatus!, message: decodeURIComponent(answer.metadata["grpc-message"] ?? "") };
  const error = JSON.parse(answer.body.toString("utf8")) as { code: string; message: string };
  return { ok: false, code: CONNECT_CODES[error.code]!, message: error.message };
}

const CONNECT_CODES: Record<string, number> = { invalid_argument: 3, unauthenticated: 16, resource_exhausted: 8, unimplemented: 12 };
