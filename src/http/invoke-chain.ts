import type { DescMessage, DescMethod, DescMethodUnary, DescService, MessageShape } from "@bufbuild/protobuf";
import {
  ConnectError,
  createMethodImplSpec,
  type ContextValues,
  type HandlerContext,
  type Interceptor,
  type MethodImplSpec,
} from "@connectrpc/connect";
import { invokeUnaryImplementation } from "@connectrpc/connect/protocol";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, ERROR_CODE_HEADER, ERROR_CODES, isErrorCode } from "../errors/api-error.js";
import { PlainHeaders } from "./plain-headers.js";

export type ChainOutcome<O extends DescMessage> =
  | { ok: true; output: MessageShape<O>; headers: Headers[] }
  | { ok: false; status: number; code: string; message: string; headers: Headers[] };

/**
 * Runs one unary method for a plain HTTP route through the same interceptor chain Connect
 * uses, so JSON routes get auth, limits, signing and metering exactly like RPC callers.
 * `deferredError` is a problem found in the HTTP request itself (body, query): it is raised
 * inside the chain, after auth, so an unauthenticated caller learns nothing from it.
 */
export async function invokeThroughChain<I extends DescMessage, O extends DescMessage>(options: {
  request: FastifyRequest;
  /** The route's reply: when its connection closes before the answer is sent, the call is aborted. */
  reply: FastifyReply;
  service: DescService;
  method: DescMethodUnary<I, O>;
  impl: (input: MessageShape<I>, context: HandlerContext) => unknown;
  input: MessageShape<I>;
  interceptors: Interceptor[];
  contextValues: ContextValues;
  deferredError?: ApiError | undefined;
  /**
   * false: the work is short (no image, no remote call), so the handler gets a shared signal
   * that never aborts instead of one tied to the connection. Connect reads the signal of every
   * call, and an AbortController plus a close listener per request was a visible cost.
   */
  abortable?: boolean;
}): Promise<ChainOutcome<O>> {
  const { request, deferredError } = options;
  const spec = createMethodImplSpec(options.method, async (input, handlerContext) => {
    if (deferredError) throw deferredError;
    return (await options.impl(input, handlerContext)) as never;
  }) as Extract<MethodImplSpec, { kind: "unary" }>;
  const signal = options.abortable ?? true ? abortSignalFor(options.reply) : NEVER_ABORTED;
  const context = createJsonHandlerContext(request, options.service, options.method, options.contextValues, signal);
  try {
    const output = (await invokeUnaryImplementation(spec, context, options.input, options.interceptors)) as MessageShape<O>;
    return { ok: true, output, headers: [context.responseHeader, context.responseTrailer] };
  } catch (error) {
    // The chain only lets ConnectErrors with a code out (see error-mapping); anything else is a bug.
    const code = error instanceof ConnectError ? error.metadata.get(ERROR_CODE_HEADER) : null;
    if (error instanceof ConnectError && code && isErrorCode(code)) {
      return { ok: false, status: ERROR_CODES[code].http, code, message: error.rawMessage, headers: [context.responseHeader, error.metadata] };
    }
    return { ok: false, status: 500, code: "internal_error", message: "The server failed to process the request.", headers: [] };
  }
}

/**
 * The HandlerContext for a JSON request, built by hand rather than with Connect's
 * createHandlerContext, which makes three AbortControllers per call (deadline, link, request).
 * JSON callers cannot send a deadline, so there is no timeout.
 */
function createJsonHandlerContext(
  request: FastifyRequest, service: DescService, method: DescMethod, values: ContextValues, signal: AbortSignal,
): HandlerContext {
  return {
    service,
    method,
    protocolName: "json",
    requestMethod: request.method,
    url: request.url,
    requestHeader: PlainHeaders.fromIncoming(request.headers),
    responseHeader: new PlainHeaders(),
    responseTrailer: new PlainHeaders(),
    values,
    timeoutMs: () => undefined,
    signal,
  };
}

/** Shared by short calls; nothing on their path adds listeners to it, so nothing accumulates. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * Aborts when the caller goes away before the answer is sent (e.g. a paid vision-provider call
 * is then cancelled). The response's "close" is the signal: the request's own "close" fires as
 * soon as its body has been read.
 */
function abortSignalFor(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const response = reply.raw;
  if (response.destroyed && !response.writableFinished) controller.abort();
  response.once("close", () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}
