import type { Interceptor } from "@connectrpc/connect";
import { decodedRequestKey } from "./context-keys.js";

/**
 * Outermost: gives the chain the request message the body guard decoded after auth
 * (src/rpc/guard-request-body.ts) in place of the empty placeholder Connect parsed, so every
 * interceptor, signing first, sees the request as the caller sent it. Calls the guard did not
 * decode (the JSON route, in-process transports) pass through untouched.
 */
export function createDecodedRequestInterceptor(): Interceptor {
  return (next) => (req) => {
    const decoded = req.stream ? undefined : req.contextValues.get(decodedRequestKey);
    return next(decoded === undefined ? req : ({ ...req, message: decoded } as typeof req));
  };
}
