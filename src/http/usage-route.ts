import { create } from "@bufbuild/protobuf";
import { ConnectError, createContextValues, createHandlerContext, createMethodImplSpec, type Interceptor, type MethodImplSpec } from "@connectrpc/connect";
import { invokeUnaryImplementation } from "@connectrpc/connect/protocol";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AccountService, GetUsageRequestSchema, type GetUsageResponse } from "../../gen/moderation/v1/account_pb.js";
import type { AppContext } from "../app/app-context.js";
import { ApiError, ERROR_CODE_HEADER, ERROR_CODES, isErrorCode } from "../errors/api-error.js";
import { transportKey } from "../interceptors/context-keys.js";
import { usageResponseToJson } from "../metering/usage-json.js";
import { parseTimeParam } from "../metering/usage-query.js";
import { createAccountServiceImpl } from "../rpc/account-service.js";
import { sendJson } from "./send-json.js";

const method = AccountService.method.getUsage;

/**
 * GET /v1/usage?granularity=day&from=&to= with X-API-Key: AccountService.GetUsage as plain
 * JSON. Like POST /v1/moderate it runs the one interceptor chain and the one service method;
 * a bad query string is raised inside the chain so it is authenticated first.
 */
export function registerUsageRoute(app: FastifyInstance, ctx: AppContext, interceptors: Interceptor[]): void {
  const service = createAccountServiceImpl(ctx);
  app.get("/v1/usage", async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    let queryError: ApiError | undefined;
    const input = create(GetUsageRequestSchema, { granularity: query.granularity ?? "" });
    try {
      input.from = BigInt(parseTimeParam("from", query.from) ?? 0);
      input.to = BigInt(parseTimeParam("to", query.to) ?? 0);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      queryError = error;
    }
    const spec = createMethodImplSpec(method, async (req, handlerContext) => {
      if (queryError) throw queryError;
      return service.getUsage!(req, handlerContext);
    }) as Extract<MethodImplSpec, { kind: "unary" }>;
    const context = createHandlerContext({
      service: AccountService,
      method,
      protocolName: "json",
      requestMethod: "GET",
      url: request.url,
      requestHeader: toHeaders(request),
      requestSignal: new AbortController().signal,
      contextValues: createContextValues().set(transportKey, "json"),
    });
    try {
      const output = (await invokeUnaryImplementation(spec, context, input, interceptors)) as GetUsageResponse;
      const body = usageResponseToJson(output, input.granularity || "day");
      return sendJson(reply, 200, body, [context.responseHeader, context.responseTrailer]);
    } catch (error) {
      const code = error instanceof ConnectError ? error.metadata.get(ERROR_CODE_HEADER) : null;
      if (error instanceof ConnectError && code && isErrorCode(code)) {
        return sendJson(reply, ERROR_CODES[code].http, { error: { code, message: error.rawMessage } }, [context.responseHeader, error.metadata]);
      }
      return sendJson(reply, 500, { error: { code: "internal_error", message: "The server failed to process the request." } }, []);
    }
  });
}

function toHeaders(request: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.startsWith(":") || value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return headers;
}
