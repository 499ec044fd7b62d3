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
/** The refusal of a live key whose account an operator disabled (`modctl account disable`). */
export const DISABLED_ACCOUNT_MESSAGE = "The API key's account is disabled: its keys are refused until an operator enables it again.";

/**
 * The invalid_api_key refusal of `key`: DISABLED_ACCOUNT_MESSAGE for a live key of a disabled
 * account (the caller holds that key, so naming its own account's state tells it nothing of
 * others), else INVALID.
 */
function invalidKeyMessage(accounts: AccountStore, key: string): string {
  return accounts.isKeyOfDisabledAccount(key) ? DISABLED_ACCOUNT_MESSAGE : INVALID;
}

/**
 * Resolves the caller's key to an account on every call. The key travels as X-API-Key or, as
 * OpenAI's SDKs send it, `Authorization: Bearer <key>`; every route and protocol accepts both,
 * since they all run this chain. X-API-Key wins when both are present. A revoked key or changed plan takes effect on
 * the next request, even when modctl changed it from outside (the store's caller cache is
 * emptied by any committed change), and on a call already under way whose key was looked up
 * more than KEY_LOOKUP_TRUSTED_MS ago.
 */
export function createAuthInterceptor(deps: { accounts: AccountStore; onKeyUsed?: (keyId: string) => void }): Interceptor {
  return (next) => async (req) => {
    if (PUBLIC_METHODS.has(req.method.name)) return next(req);
    const presented = presentedKey(req.header);
    if (!presented) throw new ApiError("missing_api_key", missingKeyMessage(req.header));
    // The transport looked this key up (from the headers, and again once the body was in if that
    // took long): same call, same answer.
    const lookedUp = trustedLookup(req.contextValues, presented);
    // Its look-up failed (e.g. storage_unavailable): answer that, not a request left undecoded for it.
    if (lookedUp?.failure !== undefined) throw lookedUp.failure;
    const caller = lookedUp
      ? lookedUp.caller
      : (deps.accounts.cachedCaller(presented) ?? { caller: await deps.accounts.authenticate(presented) }).caller;
    if (!caller) throw new ApiError("invalid_api_key", invalidKeyMessage(deps.accounts, presented));
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

/** What a call that presents no key should send, said once (missingKeyMessage). */
const SEND_KEY = "send Authorization: Bearer <key> or X-API-Key: <key>";

/** Headers some other APIs take a key in (Azure's api-key, and its spellings): not read here. */
const OTHER_KEY_HEADERS = ["api-key", "apikey", "x-apikey", "x-api-token"];

/**
 * The refusal of a call that presents no key: MISSING_KEY_MESSAGE, or, when it sent a header that
 * looks meant to carry one, what is wrong with it (an Authorization header that is not
 * "Bearer <key>", an empty X-API-Key, a key in a header not read). Asked only on the way to a
 * missing_api_key refusal. Says nothing of any key's validity: only the form of what was sent.
 */
export function missingKeyMessage(header: { get(name: string): string | null }): string {
  const apiKey = header.get("x-api-key");
  if (apiKey !== null && apiKey.trim() === "" && header.get("authorization") === null) return `The X-API-Key header is empty: ${SEND_KEY}.`;
  const authorization = header.get("authorization")?.trim();
  if (authorization !== undefined) {
    if (authorization === "") return `The Authorization header is empty: ${SEND_KEY}.`;
    const scheme = /^\S+/.exec(authorization)![0];
    const rest = authorization.slice(scheme.length).trim();
    if (/^bearer$/i.test(scheme)) {
      return rest === ""
        ? `The Authorization header holds "Bearer" but no key after it: ${SEND_KEY}.`
        : `The Authorization header holds more than one word after "Bearer" (an API key has no spaces): ${SEND_KEY}.`;
    }
    if (/^bearer/i.test(scheme)) return `The Authorization header has no space after "Bearer": ${SEND_KEY}.`;
    if (rest === "") return `The Authorization header holds no scheme (it must read "Bearer <key>"): ${SEND_KEY}.`;
    return `The Authorization header uses the "${scheme.slice(0, 20)}" scheme, and only Bearer carries an API key: ${SEND_KEY}.`;
  }
  const other = OTHER_KEY_HEADERS.find((name) => header.get(name) !== null);
  if (other !== undefined) return `A key was sent in an "${other}" header, which this service does not read: ${SEND_KEY}.`;
  return MISSING_KEY_MESSAGE;
}

/** Whether a method of the API services takes a call without an API key. */
export function isPublicMethod(method: DescMethod): boolean {
  return PUBLIC_METHODS.has(method.name);
}

/**
 * How long a key found live is trusted within one call. The transports look the key up as soon as
 * the headers arrive (no work for a caller without one), and the body may follow up to
 * REQUEST_TIMEOUT_MS later: a key revoked, or an account disabled, meanwhile was still answered
 * and billed. Once the body is in, a look-up older than this is made again. A body sent with its
 * headers arrives well within it, so nearly every call still costs one look-up (a query on
 * PostgreSQL, which has no caller cache); and a change one second old is as good as "from the next
 * request on" for an operator typing modctl.
 */
export const KEY_LOOKUP_TRUSTED_MS = 1_000;

/** A clock for the look-up's age that the wall clock's steps (NTP, a changed time) cannot move. */
const monotonicNow = () => performance.now();

/**
 * A key looked up by the transport before it decoded the body, and when, by the clock it was
 * looked up with (kept with it, so whoever reads its age reads the same clock).
 */
type KeyLookup = { key: string; caller: Caller | undefined; failure?: unknown; at: number; clock: () => number };

/** The call's look-up of its key; the interceptor reuses it while it may be trusted. */
const keyLookupKey = createContextKey<KeyLookup | undefined>(undefined, { description: "API key looked up before decoding" });

/**
 * This call's look-up of `key`, if it may still be relied on. Only a live key's expires: one found
 * not live, or not looked up for an outage, stays the answer for the whole call, since its body
 * was never held or decoded (a key found live later must not run the call on an empty request).
 */
function trustedLookup(values: ContextValues, key: string): KeyLookup | undefined {
  const lookedUp = values.get(keyLookupKey);
  if (lookedUp?.key !== key) return undefined;
  return lookedUp.caller === undefined || lookedUp.clock() - lookedUp.at < KEY_LOOKUP_TRUSTED_MS ? lookedUp : undefined;
}

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
 *
 * Asked again once the body is in, before it is charged, parsed or decoded: a look-up found live
 * within KEY_LOOKUP_TRUSTED_MS is reused at once, an older one is made again (the key may have been
 * revoked while the body arrived), and one that found no live key stays so.
 */
export function createApiKeyCheck(accounts: AccountStore, now: () => number = monotonicNow): (header: { get(name: string): string | null }, values: ContextValues) => boolean | Promise<boolean> {
  return (header, values) => {
    const key = presentedKey(header);
    if (!key) return false;
    const earlier = trustedLookup(values, key);
    if (earlier) return earlier.caller !== undefined;
    const cached = accounts.cachedCaller(key);
    if (cached) {
      values.set(keyLookupKey, { key, caller: cached.caller, at: now(), clock: now });
      return cached.caller !== undefined;
    }
    const at = now();
    return accounts.authenticate(key).then((caller) => {
      values.set(keyLookupKey, { key, caller, at, clock: now });
      return caller !== undefined;
    }, (failure: unknown) => {
      values.set(keyLookupKey, { key, caller: undefined, failure, at, clock: now });
      return false;
    });
  };
}
