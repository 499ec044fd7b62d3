import { ConnectError, type Interceptor, type StreamResponse, type UnaryRequest, type UnaryResponse } from "@connectrpc/connect";
import { canonicalMessageBytes } from "../signing/canonical-message.js";
import { signConnectError, signOutcome } from "../signing/sign-outcome.js";
import type { Signer } from "../signing/signer.js";
import { signedRpcFor } from "../signing/signed-ahead.js";
import { rpcRoute } from "../signing/scope.js";
import { signatureBindingKey, signatureScopeOf, transportKey } from "./context-keys.js";

interface SigningInterceptorDeps {
  /** Usually the SigningKeyRing: its active signer signs every response. */
  keys: { readonly signer: Signer };
  /** Milliseconds since the epoch. */
  now?: () => number;
}

/**
 * Signs every unary result, success or error, for gRPC, gRPC-Web and Connect, through
 * signOutcome (src/signing/sign-outcome.ts, where the rules are). Must be the
 * OUTERMOST interceptor: it has to see the request as the caller sent it and the final
 * result, including errors raised by auth and rate limiting.
 *
 * Covered: gRPC status, x-error-code (errors), SHA-256 of the canonical response message
 * bytes or of the error message, SHA-256 of the canonical request message bytes.
 */
export function createSigningInterceptor(deps: SigningInterceptorDeps): Interceptor {
  const now = deps.now ?? Date.now;
  // Not async itself: JSON calls pass straight through without one more promise per call.
  return (next) => (req) => {
    // The JSON route signs the exact bytes it sends (src/http/send-json.ts), which no interceptor sees.
    if (req.stream || req.contextValues.get(transportKey) === "json") return next(req);
    return signUnary(req, next);
  };

  async function signUnary(req: UnaryRequest, next: Parameters<Interceptor>[0]): Promise<UnaryResponse | StreamResponse> {
    const requestBytes = canonicalMessageBytes(req.method.input, req.message);
    const route = rpcRoute(req.method);
    req.contextValues.set(signatureBindingKey, { form: "rpc", requestBytes, route });
    // The account, once the chain found the key live (auth runs inside `next`).
    const scope = () => signatureScopeOf(route, req.contextValues);
    let res;
    try {
      res = await next(req);
    } catch (error) {
      throw await signConnectError(deps.keys.signer, ConnectError.from(error), { requestBytes, nowMs: now(), scope: scope() });
    }
    if (res.stream) return res;
    const signedAhead = signedRpcFor(res.message);
    if (signedAhead) {
      for (const [name, value] of Object.entries(signedAhead)) res.header.set(name, value);
      return res;
    }
    // Sorts the answer's maps in place: Connect then serializes exactly the bytes signed.
    const metadata = await signOutcome(deps.keys.signer, { kind: "rpc-answer", schema: res.method.output, message: res.message, requestBytes, nowMs: now(), scope: scope() });
    for (const [name, value] of Object.entries(metadata)) res.header.set(name, value);
    return res;
  }
}
