import { shareSignal } from "../threads/caller-lane.js";
import { create, isMessage, type DescMessage, type DescMethod, type DescMethodUnary, type DescService, type MessageShape } from "@bufbuild/protobuf";
import {
  ConnectError,
  createContextKey,
  type ContextValues,
  type HandlerContext,
  type Interceptor,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ApiError, ERROR_CODE_HEADER, ERROR_CODES, isErrorCode } from "../errors/api-error.js";
import { PlainHeaders } from "./plain-headers.js";
import { observationKey, observeAs } from "../observability/request-observation.js";

type ChainOutcome<O extends DescMessage> =
  | { ok: true; output: MessageShape<O>; headers: Headers[] }
  | { ok: false; status: number; code: string; message: string; headers: Headers[] };

interface ChainCall<I extends DescMessage> {
  request: FastifyRequest;
  /** The route's reply: when its connection closes before the answer is sent, the call is aborted. */
  reply: FastifyReply;
  input: MessageShape<I>;
  contextValues: ContextValues;
  /**
   * A problem found in the HTTP request itself (body, query): it is raised inside the chain,
   * after auth, so an unauthenticated caller learns nothing from it.
   */
  deferredError?: ApiError | undefined;
  /**
   * false: the work is short (no image, no remote call), so the handler gets a shared signal
   * that never aborts instead of one tied to the connection. Connect reads the signal of every
   * call, and an AbortController plus a close listener per request was a visible cost.
   */
  abortable?: boolean;
}

/** What the innermost step needs of its call; it travels in the call's context values. */
interface CallState {
  context: HandlerContext;
  deferredError: ApiError | undefined;
}
const callStateKey = createContextKey<CallState | undefined>(undefined);

/**
 * Runs one unary method for a plain HTTP route through the same interceptor chain Connect
 * uses, so JSON routes get auth, limits, signing and metering exactly like RPC callers. It
 * does what Connect's invokeUnaryImplementation does (the same request and response shapes,
 * the output normalised to a message), but composes the chain once per route instead of on
 * every call, which with five interceptors was a visible share of a JSON request's cost.
 */
export function createChainInvoker<I extends DescMessage, O extends DescMessage>(options: {
  service: DescService;
  method: DescMethodUnary<I, O>;
  impl: (input: MessageShape<I>, context: HandlerContext) => unknown;
  interceptors: Interceptor[];
  /** Aborts abortable calls still running when the shutdown grace is over (edge/server.ts). */
  stopCalls?: AbortSignal | undefined;
}): (call: ChainCall<I>) => Promise<ChainOutcome<O>> {
  const { service, method } = options;
  const innermost = async (req: UnaryRequest<I, O>): Promise<UnaryResponse<I, O>> => {
    const state = req.contextValues.get(callStateKey)!;
    if (state.deferredError) throw state.deferredError;
    // As Connect merges a handler context with the request an interceptor may have replaced.
    const context: HandlerContext = { ...state.context, service: req.service, requestHeader: req.header, signal: req.signal, values: req.contextValues };
    const output = await options.impl(req.message, context);
    const message = isMessage(output, method.output) ? output : create(method.output, output as never);
    return { stream: false, service, method, header: state.context.responseHeader, trailer: state.context.responseTrailer, message };
  };
  let chain = innermost;
  for (let i = options.interceptors.length - 1; i >= 0; i--) chain = options.interceptors[i]!(chain as never) as unknown as typeof innermost;

  return async (call) => {
    const signal = call.abortable ?? true ? abortSignalFor(call.reply, options.stopCalls) : NEVER_ABORTED;
    const context = createJsonHandlerContext(call.request, service, method, call.contextValues, signal);
    call.contextValues.set(callStateKey, { context, deferredError: call.deferredError });
    // For the request log and metrics: the chain notes the account and error code on it.
    const observation = observeAs(call.request, "json");
    if (observation) call.contextValues.set(observationKey, observation);
    try {
      const res = await chain({
        stream: false, service, method, message: call.input, requestMethod: context.requestMethod, url: context.url,
        signal, header: context.requestHeader, contextValues: call.contextValues,
      });
      return { ok: true, output: res.message, headers: [res.header, res.trailer] };
    } catch (error) {
      // The chain only lets ConnectErrors with a code out (see error-mapping); anything else is a bug.
      const code = error instanceof ConnectError ? error.metadata.get(ERROR_CODE_HEADER) : null;
      if (error instanceof ConnectError && code && isErrorCode(code)) {
        return { ok: false, status: ERROR_CODES[code].http, code, message: error.rawMessage, headers: [context.responseHeader, error.metadata] };
      }
      return { ok: false, status: 500, code: "internal_error", message: "The server failed to process the request.", headers: [] };
    }
  };
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
// Shared by many calls: it carries no call's lane (threads/caller-lane.ts withLane).
const NEVER_ABORTED = shareSignal(new AbortController().signal);

/**
 * Aborts when the caller goes away before the answer is sent (e.g. a paid vision-provider call
 * is then cancelled). The response's "close" is the signal: the request's own "close" fires as
 * soon as its body has been read. Also when the shutdown grace is over (`stopCalls`), so the call
 * is answered before its connection is cut.
 */
function abortSignalFor(reply: FastifyReply, stopCalls: AbortSignal | undefined): AbortSignal {
  const controller = new AbortController();
  const response = reply.raw;
  if (response.destroyed && !response.writableFinished) controller.abort();
  const stop = () => controller.abort(stopCalls?.reason);
  response.once("close", () => {
    stopCalls?.removeEventListener("abort", stop);
    if (!response.writableFinished) controller.abort();
  });
  if (stopCalls?.aborted) stop();
  else stopCalls?.addEventListener("abort", stop);
  return controller.signal;
}
