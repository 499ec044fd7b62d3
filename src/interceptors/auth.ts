import type { Interceptor } from "@connectrpc/connect";
import type { AccountStore } from "../accounts/account-store.js";
import { ApiError } from "../errors/api-error.js";
import { callerKey } from "./context-keys.js";

/** Methods anyone may call: they reveal nothing about accounts. */
const PUBLIC_METHODS = new Set(["ListSigningKeys"]);

const MISSING = "An API key is required: include it in the X-API-Key header (x-api-key metadata on gRPC).";
const INVALID = "The API key is invalid or has been revoked.";

/**
 * Resolves the caller's key to an account on every call. The key travels as X-API-Key or, as
 * OpenAI's SDKs send it, `Authorization: Bearer <key>`; every route and protocol accepts both,
 * since they all run this chain. X-API-Key wins when both are present. A revoked key or changed plan takes effect on
 * the next request, even when modctl changed it from outside (the store's caller cache is
 * emptied by any committed change).
 */
export function createAuthInterceptor(deps: { accounts: AccountStore; onKeyUsed?: (keyId: string) => void }): Interceptor {
  return (next) => async (req) => {
    if (PUBLIC_METHODS.has(req.method.name)) return next(req);
    const presented = req.header.get("x-api-key")?.trim() || bearerToken(req.header.get("authorization"));
    if (!presented) throw new ApiError("missing_api_key", MISSING);
    const caller = (deps.accounts.cachedCaller(presented) ?? { caller: await deps.accounts.authenticate(presented) }).caller;
    if (!caller) throw new ApiError("invalid_api_key", INVALID);
    req.contextValues.set(callerKey, caller);
    deps.onKeyUsed?.(caller.keyId);
    return next(req);
  };
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 9110); other schemes are not keys. */
export function bearerToken(value: string | null): string | undefined {
  const match = value ? /^bearer[ \t]+(\S+)[ \t]*$/i.exec(value) : null;
  return match?.[1];
}
