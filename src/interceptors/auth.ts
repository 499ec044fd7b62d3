import type { Interceptor } from "@connectrpc/connect";
import type { AccountStore } from "../accounts/account-store.js";
import { ApiError } from "../errors/api-error.js";
import { callerKey } from "./context-keys.js";

/** Methods anyone may call: they reveal nothing about accounts. */
const PUBLIC_METHODS = new Set(["ListSigningKeys"]);

const MISSING = "An API key is required: include it in the X-API-Key header (x-api-key metadata on gRPC).";
const INVALID = "The API key is invalid or has been revoked.";

/**
 * Resolves X-API-Key to an account on every call. A revoked key or changed plan takes effect on
 * the next request, even when modctl changed it from outside (the store's caller cache is
 * emptied by any committed change).
 */
export function createAuthInterceptor(deps: { accounts: AccountStore; onKeyUsed?: (keyId: string) => void }): Interceptor {
  return (next) => async (req) => {
    if (PUBLIC_METHODS.has(req.method.name)) return next(req);
    const presented = req.header.get("x-api-key")?.trim();
    if (!presented) throw new ApiError("missing_api_key", MISSING);
    const caller = (deps.accounts.cachedCaller(presented) ?? { caller: await deps.accounts.authenticate(presented) }).caller;
    if (!caller) throw new ApiError("invalid_api_key", INVALID);
    req.contextValues.set(callerKey, caller);
    deps.onKeyUsed?.(caller.keyId);
    return next(req);
  };
}
