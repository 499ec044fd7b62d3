import { describe, expect, it } from "vitest";
import { verifyRpcResponse } from "../../src/client/verify-rpc-response.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { GRPC } from "../api/error-expectations.js";
import { postH1, postH2, type RawRpcAnswer } from "../support/raw-rpc.js";
import { useServerWithKey } from "../support/test-server.js";

// An audit (fuzzing, F1): a Content-Type fastify cannot parse at all, sent to an RPC route, was
// answered by the root error handler in the JSON routes' shape ({"error":…}, "Unsupported Media
// Type"), signed the HTTP way, with no Connect code and, over h2c, no grpc-status. An RPC route now
// refuses it as it refuses any Content-Type it does not serve (text/plain): its own 415.

const MODERATE = "/moderation.v1.ModerationService/Moderate";
const BODY = new TextEncoder().encode(JSON.stringify({ input: [{ type: "text", text: "hello there" }] }));
const UNPARSEABLE = ["", "/json", "application/json, text/plain", ";", "a/b/c", "application/grpc, x"];
const SERVES = "is not an RPC protocol this route serves: use application/json or application/proto (Connect), application/grpc or application/grpc-web (binary; not grpc-web-text).";

const file = useServerWithKey();

type Post = (baseUrl: string, path: string, headers: Record<string, string>, body: Uint8Array) => Promise<RawRpcAnswer>;
const LISTENERS: [string, () => string, Post][] = [
  ["HTTP/1.1", () => file.server.httpUrl, postH1],
  ["h2c", () => file.server.grpcUrl, postH2],
];

/** The route's refusal of `contentType`: 415 in Connect's error shape, signed for the route over an empty request. */
async function expectRouteRefusal(answer: RawRpcAnswer, route: string, contentType: string): Promise<void> {
  expect({ status: answer.httpStatus, type: answer.metadata["content-type"], code: answer.metadata["x-error-code"] })
    .toEqual({ status: 415, type: "application/json", code: "unsupported_media_type" });
  const body = JSON.parse(answer.body.toString("utf8")) as { code: string; message: string; details: unknown[] };
  expect(body).toEqual({ code: "invalid_argument", message: `The Content-Type "${contentType}" ${SERVES}`, details: [expect.anything()] });
  const outcome = { ok: false as const, code: GRPC.INVALID_ARGUMENT, message: body.message };
  const jwks = toJwks(file.server.ctx.signingKeys);
  const verified = await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata: answer.metadata, jwks, expect: { route } });
  expect(verified).toMatchObject({ valid: true });
}

describe.each(LISTENERS)("an RPC route over %s, sent a Content-Type fastify cannot parse", (_listener, baseUrl, post) => {
  it("answers text/plain, the well-formed case, with the route's refusal", async () => {
    await expectRouteRefusal(await post(baseUrl(), MODERATE, { "content-type": "text/plain", "x-api-key": file.key }, BODY), MODERATE, "text/plain");
  });

  it.each(UNPARSEABLE)("%j: the same refusal, naming it", async (contentType) => {
    const answer = await post(baseUrl(), MODERATE, { "content-type": contentType, "x-api-key": file.key }, BODY);
    await expectRouteRefusal(answer, MODERATE, contentType);
    expect(answer.metadata["x-request-id"]).toBeTruthy();
  });

  it.each([
    "/moderation.v1.AccountService/GetUsage",
    "/moderation.v1.PolicyService/GetPolicy",
    "/moderation.v1.ModerationService/ListSigningKeys",
    "/grpc.health.v1.Health/Check",
  ])("%s, with or without a key: the same", async (route) => {
    await expectRouteRefusal(await post(baseUrl(), route, { "content-type": "/json", "x-api-key": file.key }, BODY), route, "/json");
    await expectRouteRefusal(await post(baseUrl(), route, { "content-type": "/json" }, new Uint8Array()), route, "/json");
  });

  // fastify refused the type before the not-found handler ran: an unknown path was a 415.
  it("an unknown path: the not-found answer, as with any other type", async () => {
    const answer = await post(baseUrl(), "/moderation.v1.ModerationService/Nope", { "content-type": "/json", "x-api-key": file.key }, BODY);
    expect({ status: answer.httpStatus, code: answer.metadata["x-error-code"] }).toEqual({ status: 404, code: "not_found" });
    const grpc = await post(baseUrl(), "/moderation.v1.ModerationService/Nope", { "content-type": "application/grpc, x", "x-api-key": file.key }, BODY);
    expect({ status: grpc.httpStatus, grpcStatus: grpc.grpcStatus, code: grpc.metadata["x-error-code"] }).toEqual({ status: 200, grpcStatus: GRPC.UNIMPLEMENTED, code: "unknown_method" });
  });
});

// fastify refuses a QUERY without a Content-Type before the route too (FST_ERR_ROUTE_MISSING_CONTENT_TYPE).
describe("a QUERY without a Content-Type to an RPC route", () => {
  it("gets the route's 405, as a GET does", async () => {
    const response = await fetch(`${file.server.httpUrl}${MODERATE}`, { method: "QUERY", headers: { "x-api-key": file.key } });
    expect({ status: response.status, code: response.headers.get("x-error-code"), allow: response.headers.get("allow") }).toEqual({ status: 405, code: "method_not_allowed", allow: "POST" });
    const body = (await response.json()) as { code: string; message: string };
    expect(body).toMatchObject({ code: "unimplemented", message: `Use POST for ${MODERATE}.` });
    const outcome = { ok: false as const, code: GRPC.UNIMPLEMENTED, message: body.message };
    const jwks = toJwks(file.server.ctx.signingKeys);
    expect(await verifyRpcResponse({ requestBytes: new Uint8Array(), outcome, metadata: response.headers, jwks, expect: { route: MODERATE } })).toMatchObject({ valid: true });
  });
});
