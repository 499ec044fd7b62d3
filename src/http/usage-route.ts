import { create } from "@bufbuild/protobuf";
import { createContextValues, type Interceptor } from "@connectrpc/connect";
import type { FastifyInstance } from "fastify";
import { AccountService, GetUsageRequestSchema } from "../../gen/moderation/v1/account_pb.js";
import type { AppContext } from "../app/app-context.js";
import { ApiError } from "../errors/api-error.js";
import { signatureScopeOf, transportKey } from "../interceptors/context-keys.js";
import { usageResponseToJson } from "../metering/usage-json.js";
import { parseTimeParam } from "../metering/usage-query.js";
import { createAccountServiceImpl } from "../rpc/account-service.js";
import { createChainInvoker } from "./invoke-chain.js";
import { registerMethodNotAllowed, sendSignedJson, signingNow } from "./send-json.js";

const method = AccountService.method.getUsage;

/**
 * GET /v1/usage?granularity=day&from=&to= with X-API-Key: AccountService.GetUsage as plain
 * JSON. Like POST /v1/moderate it runs the one interceptor chain and the one service method;
 * a bad query string is raised inside the chain so it is authenticated first. Answers are
 * signed, bound to the request target (path and query string, as sent): a GET has no body, and
 * without it an answer for one period could be passed off as the answer for another.
 */
export function registerUsageRoute(app: FastifyInstance, ctx: AppContext, interceptors: Interceptor[]): void {
  const service = createAccountServiceImpl(ctx);
  const invoke = createChainInvoker({ service: AccountService, method, impl: service.getUsage!, interceptors });
  app.get("/v1/usage", { exposeHeadRoute: false }, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    let queryError: ApiError | undefined;
    const input = create(GetUsageRequestSchema, { granularity: query.granularity ?? "" });
    try {
      // Only what was given: 0 is the Unix epoch, not "absent" (it silently meant the default).
      const from = parseTimeParam("from", query.from);
      const to = parseTimeParam("to", query.to, "up");
      if (from !== undefined) input.from = BigInt(from);
      if (to !== undefined) input.to = BigInt(to);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      queryError = error;
    }
    const contextValues = createContextValues().set(transportKey, "json");
    const outcome = await invoke({ request, reply, input, contextValues, deferredError: queryError, abortable: false });
    // Signed like /v1/moderate, with the request target standing in for the body a GET lacks.
    const signing = { ...signingNow(ctx), requestBody: Buffer.from(request.url, "utf8"), scope: signatureScopeOf("/v1/usage", contextValues) };
    if (outcome.ok) return sendSignedJson(reply, signing, 200, usageResponseToJson(outcome.output, input.granularity || "day"), outcome.headers);
    return sendSignedJson(reply, signing, outcome.status, { error: { code: outcome.code, message: outcome.message } }, outcome.headers);
  });
  registerMethodNotAllowed(app, "/v1/usage", "GET", () => signingNow(ctx), {
    error: { code: "method_not_allowed", message: "Use GET for /v1/usage." },
  });
}

