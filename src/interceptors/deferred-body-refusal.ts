import type { Interceptor } from "@connectrpc/connect";
import { deferredBodyRefusalKey } from "./context-keys.js";

/**
 * Innermost: raises the refusal the body guard found without decoding the request (too many
 * items; src/rpc/guard-request-body.ts), which then reached the chain as an empty placeholder.
 * Here, after auth and the rate limit, it is answered and charged exactly as the handler's own
 * validation answered it when the request was decoded first.
 */
export function createDeferredBodyRefusalInterceptor(): Interceptor {
  return (next) => (req) => {
    const refusal = req.contextValues.get(deferredBodyRefusalKey);
    return refusal ? Promise.reject(refusal) : next(req);
  };
}
