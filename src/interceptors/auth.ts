import type { DescMethod } from "@bufbuild/protobuf";
import { createContextKey, type ContextValues, type Interceptor } from "@connectrpc/connect";
import type { AccountStore, Caller } from "../accounts/account-store.js";
import { ApiError } from "../errors/api-error.js";
import { callerKey } from "./context-keys.js";

/** Methods anyone may call: they reveal nothing about accounts. */
const PUBLIC_METHODS = new Set(["ListSigningKeys"]);

/** The refusal of a call that presents no key (every route and service says the same). */
export const MISSING_KEY_MESSAGE = "An API key is required: send it in the X-API-Key header or as Authorization: Bearer <key> (x-api-key or authorization metadata on gRPC).";
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
    const presented = presentedKey(req.header);
    if (!presented) throw new ApiError("missing_api_key", MISSING_KEY_MESSAGE);
    // The transport looked this key up a moment ago, before decoding the body: same call, same answer.
    const lookedUp = req.contextValues.get(keyLookupKey);
    // Its look-up failed (e.g. storage_unavailable): answer that, not a request left undecoded for it.
    if (lookedUp?.key === presented && lookedUp.failure !== undefined) throw lookedUp.failure;
    const caller = lookedUp?.key === presented
      ? lookedUp.caller
      : (deps.accounts.cachedCaller(presented) ?? { caller: await deps.accounts.authenticate(presented) }).caller;
    if (!caller) throw new ApiError("invalid_api_key", INVALID);
    req.contextValues.set(callerKey, caller);
    deps.onKeyUsed?.(caller.keyId);
    return next(req);
  };
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 9110); other schemes are not keys. */
function bearerToken(value: string | null): string | undefined {
  const match = value ? /^bearer[ \t]+(\S+)[ \t]*$/i.exec(value) : null;
  return match?.[1];
}

/** The key a call presents: X-API-Key, else an `Authorization: Bearer` token. */
function presentedKey(header: { get(name: string): string | null }): string | undefined {
  return header.get("x-api-key")?.trim() || bearerToken(header.get("authorization"));
}

/** Whether a method of the API services takes a call without an API key. */
export function isPublicMethod(method: DescMethod): boolean {
  return PUBLIC_METHODS.has(method.name);
}

/** A key looked up by the transport before it decoded the body; the interceptor reuses it within the call. */
const keyLookupKey = createContextKey<{ key: string; caller: Caller | undefined; failure?: unknown } | undefined>(undefined, { description: "API key looked up before decoding" });

/** The caller a successful createApiKeyCheck found, for this call's context. */
export function liveCallerOf(values: ContextValues): Caller | undefined {
  return values.get(keyLookupKey)?.caller;
}

/**
 * Whether the call is known to have no live key: none presented, or the store said the one
 * presented is not live. False when the store could not be asked (the call is refused
 * storage_unavailable, retryable, and its key may well be live).
 */
export function knownWithoutLiveKey(values: ContextValues): boolean {
  const lookedUp = values.get(keyLookupKey);
  return lookedUp === undefined || (lookedUp.caller === undefined && lookedUp.failure === undefined);
}

/**
 * Whether a call presents a live key, asked by the transports before they inflate or decode a
 * body: no caller without a live key gets that work done. The interceptor above still makes the
 * decision and refuses with the right code, reusing the look-up kept in `values`. A failure to
 * look the key up counts as "not live" (the body stays undecoded) and is kept: the interceptor
 * answers with it (a database outage: 503 storage_unavailable), rather than looking again and
 * running the call on a body that was never decoded.
 */
export function createApiKeyCheck(accounts: AccountStore): (header: { get(name: string): string | null }, values: ContextValues) => boolean | Promise<boolean> {
  return (header, values) => {
    const key = presentedKey(header);
    if (!key) return false;
    const cached = accounts.cachedCaller(key);
    if (cached) {
      values.set(keyLookupKey, { key, caller: cached.caller });
      return cached.caller !== undefined;
    }
    return accounts.authenticate(key).then((caller) => {
      values.set(keyLookupKey, { key, caller });
      return caller !== undefined;
    }, (failure: unknown) => {
      values.set(keyLookupKey, { key, caller: undefined, failure });
      return false;
    });
  };
}
