import { createContextKey, type ContextValues } from "@connectrpc/connect";
import type { Caller } from "../accounts/account-store.js";
import type { ApiError } from "../errors/api-error.js";
import type { SignatureScope } from "../signing/scope.js";
import type { SignatureBinding } from "../workers/worker-answers.js";

/** The authenticated caller, set by the auth interceptor; undefined on public methods. */
export const callerKey = createContextKey<Caller | undefined>(undefined, { description: "authenticated caller" });

/** The protocol a call arrived on: "json" for POST /v1/moderate, else Connect's protocol name. */
export const transportKey = createContextKey<"json" | "connect" | "grpc" | "grpc-web">("connect", { description: "transport" });

/**
 * What the answer's signature will be bound to, set once per call by whoever signs the answer:
 * the JSON route of POST /v1/moderate (the request body) and the signing interceptor (the RPC
 * request's canonical bytes). rpc/answer-for.ts reads it to let a compute worker render and sign
 * the answer ahead; undefined (OpenAI's dialect, which its route renders itself) means no answer ahead.
 */
export const signatureBindingKey = createContextKey<SignatureBinding | undefined>(undefined, { description: "what the answer's signature is bound to" });

/**
 * The RPC request message as the body guard decoded it, after auth (src/rpc/guard-request-body.ts);
 * Connect itself parsed only an empty placeholder. decoded-request.ts hands it to the chain.
 */
export const decodedRequestKey = createContextKey<object | undefined>(undefined, { description: "request decoded by the body guard" });

/**
 * A problem with the request that the body guard found without decoding it (more items than a
 * request may hold, src/rpc/guard-request-body.ts), for deferred-body-refusal.ts to raise inside the
 * chain: after auth and the rate limit, as the handler's own validation would have raised it.
 */
export const deferredBodyRefusalKey = createContextKey<ApiError | undefined>(undefined, { description: "body refused before decoding" });

/**
 * Tells the listener that no live key is behind this call (not live, or a public method), so that
 * its body gets a short time to arrive (edge/http2-request-timeout.ts); set per call by the routes.
 */
export const untrustedArrivalKey = createContextKey<() => void>(() => {}, { description: "shortens the body's arrival time" });

/**
 * What an answer of `route` is signed for (signing/scope.ts): the route, and the caller's account
 * once the chain found its key live. Read when the answer is signed, after the chain ran.
 */
export function signatureScopeOf(route: string, values: ContextValues): SignatureScope {
  return { route, account: values.get(callerKey)?.accountId };
}
