import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { ModerateRequestSchema, ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import { MAX_REQUEST_BYTES } from "../../src/base/limits.js";
import { verifyConnectResult } from "../../src/client/verify-rpc-response.js";
import { ERROR_CODE_HEADER } from "../../src/errors/api-error.js";
import { createInterceptorChain } from "../../src/interceptors/chain.js";
import { toJwks } from "../../src/signing/key-ring.js";
import { createRoutes } from "../../src/rpc/routes.js";
import { useServerWithKey } from "../support/test-server.js";

/**
 * createRoutes attaches everything a route needs, the body guard and the refusals included, so a
 * test that registers the routes in process (no socket) gets what the server serves.
 */

const file = useServerWithKey();
const moderate = ModerationService.method.moderate;

function inProcessClient() {
  const ctx = file.server.ctx;
  return createClient(ModerationService, createRouterTransport(createRoutes(ctx, createInterceptorChain(ctx), () => true)));
}

async function refusal(call: Promise<unknown>): Promise<ConnectError> {
  return call.then(() => { throw new Error("expected a refusal"); }, (error: unknown) => ConnectError.from(error));
}

describe("routes registered in process with createRouterTransport", () => {
  it("answer a call as the server does, signed", async () => {
    const request = create(ModerateRequestSchema, { input: [{ type: "text", text: "have a nice day" }] });
    let header = new Headers();
    const message = await inProcessClient().moderate(request, { headers: { "x-api-key": file.key }, onHeader: (h) => (header = h) });
    const jwks = toJwks(file.server.ctx.signingKeys);
    expect(await verifyConnectResult({ method: moderate, request, result: { message, header }, jwks })).toMatchObject({ valid: true });
  });

  it("get the body guard: a message over the limit is payload_too_large before the key is asked for", async () => {
    const request = create(ModerateRequestSchema, { input: [{ type: "text", text: "x".repeat(MAX_REQUEST_BYTES) }] });
    const error = await refusal(inProcessClient().moderate(request));
    expect(error.code).toBe(Code.ResourceExhausted);
    expect(error.metadata.get(ERROR_CODE_HEADER)).toBe("payload_too_large");
  });

  it("get the body guard: a malformed connect-timeout-ms is invalid_request, signed", async () => {
    const request = create(ModerateRequestSchema, { input: [{ type: "text", text: "hi" }] });
    const error = await refusal(inProcessClient().moderate(request, { headers: { "x-api-key": file.key, "connect-timeout-ms": "1.5" } }));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.metadata.get(ERROR_CODE_HEADER)).toBe("invalid_request");
    expect(error.rawMessage).toMatch(/connect-timeout-ms header "1.5" is malformed/);
    expect(error.metadata.get("signature")).toMatch(/^sig1=:/);
  });
});
