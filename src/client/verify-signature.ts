import { findJwk } from "../signing/jwk.js";
import { buildSignatureBase, parseSignatureHeaders, SignatureInputError, type ParsedSignature } from "../signing/signature-base.js";
import { ACCOUNT_HEADER, ROUTE_HEADER, SIGNATURE_HEADER, SIGNATURE_INPUT_HEADER } from "../signing/headers.js";
import { equalBytes, parseSha256DigestHeader } from "../signing/digest-header.js";
import { headerValue, type HeadersLike } from "./headers-like.js";

export interface VerifyResult {
  valid: boolean;
  /** Why verification failed, one line. */
  reason?: string;
  /** The key that made the signature (present once the signature headers parse). */
  keyId?: string;
  /** Signature time, Unix seconds. */
  created?: number;
}

export interface VerifyOptions {
  /** The JWKS document (from /.well-known/jwks.json or ListSigningKeys). */
  jwks: unknown;
  /** Reject signatures older than this; default: no limit (stored verdicts stay verifiable). */
  maxAgeSeconds?: number;
  /** Milliseconds since the epoch; for maxAgeSeconds. */
  now?: () => number;
  /**
   * What the caller called and as whom (docs/signing.md, "Scope"): the route ("/v1/moderate", or
   * an RPC's "/moderation.v1.ModerationService/Moderate") and the account id. Each value given must
   * be signed and equal. Without them an answer signed for another route or another account (its
   * policy) verifies too: a caller checking its own answers should give both.
   */
  expect?: { route?: string; account?: string };
}

/** Future `created` times tolerated under maxAgeSeconds: clocks of two machines differ a little. */
const CLOCK_SKEW_SECONDS = 300;

/** Thrown inside the verifiers to stop at the first failed check with its reason. */
export class VerificationFailure extends Error {
  override readonly name = "VerificationFailure";
}

export function readSignature(headers: HeadersLike): ParsedSignature {
  try {
    return parseSignatureHeaders(headerValue(headers, SIGNATURE_INPUT_HEADER), headerValue(headers, SIGNATURE_HEADER));
  } catch (error) {
    if (error instanceof SignatureInputError) throw new VerificationFailure(error.message);
    throw error;
  }
}

export function requireComponents(parsed: ParsedSignature, required: readonly string[]): void {
  for (const name of required) {
    if (!parsed.params.components.includes(name)) throw new VerificationFailure(`the signature does not cover "${name}"`);
  }
}

export async function requireDigest(header: string | undefined, data: Uint8Array, what: string, mismatch: string): Promise<void> {
  const claimed = parseSha256DigestHeader(header);
  if (!claimed) throw new VerificationFailure(`${what} is missing or has no sha-256 member`);
  const actual = new Uint8Array(await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>));
  if (!equalBytes(claimed, actual)) throw new VerificationFailure(mismatch);
}

/** Rebuilds the signature base from `values`, finds the key and checks the Ed25519 signature. */
export async function requireValidSignature(parsed: ParsedSignature, values: ReadonlyMap<string, string>, options: VerifyOptions): Promise<void> {
  let base: string;
  try {
    base = buildSignatureBase(parsed.paramsList, values);
  } catch (error) {
    if (error instanceof SignatureInputError) throw new VerificationFailure(error.message);
    throw error;
  }
  const jwk = findJwk(options.jwks, parsed.params.keyId);
  if (!jwk) throw new VerificationFailure(`key ${parsed.params.keyId} is not in the JWKS (unknown or retired)`);
  const key = await crypto.subtle.importKey("jwk", { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, { name: "Ed25519" }, false, ["verify"]);
  const ok = await crypto.subtle.verify("Ed25519", key, parsed.signature as Uint8Array<ArrayBuffer>, new TextEncoder().encode(base));
  if (!ok) throw new VerificationFailure("the signature does not match the signed fields");
  if (options.maxAgeSeconds !== undefined) {
    const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
    if (!Number.isFinite(nowSeconds)) throw new VerificationFailure("the current time is not a number: the signature's age cannot be checked");
    if (nowSeconds - parsed.params.created > options.maxAgeSeconds) {
      throw new VerificationFailure(`the signature is older than ${options.maxAgeSeconds} s`);
    }
    if (parsed.params.created - nowSeconds > CLOCK_SKEW_SECONDS) {
      throw new VerificationFailure(`the signature was created ${parsed.params.created - nowSeconds} s in the future`);
    }
  }
}

/** The expected route and account (VerifyOptions.expect) are signed, and the values received. */
export function requireScope(parsed: ParsedSignature, headers: HeadersLike, options: VerifyOptions): void {
  const expected: Array<[string, string | undefined, string]> = [[ROUTE_HEADER, options.expect?.route, "route"], [ACCOUNT_HEADER, options.expect?.account, "account"]];
  for (const [name, value, what] of expected) {
    if (value === undefined) continue;
    requireComponents(parsed, [name]);
    const received = headerValue(headers, name);
    if (received !== value) throw new VerificationFailure(`the answer was signed for ${what} ${JSON.stringify(received?.slice(0, 200))}, not ${JSON.stringify(value.slice(0, 200))}`);
  }
}

/** The caller's input is there at all (a JavaScript caller may pass anything): else a failure, not a TypeError. */
export function requireInput(fields: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) throw new VerificationFailure(`${name} is missing`);
  }
}

/** Runs the checks; turns the first VerificationFailure into { valid: false, reason }. */
export async function runChecks(check: (note: (parsed: ParsedSignature) => void) => Promise<void>): Promise<VerifyResult> {
  let parsed: ParsedSignature | undefined;
  try {
    await check((p) => (parsed = p));
    return { valid: true, ...identify(parsed) };
  } catch (error) {
    if (!(error instanceof VerificationFailure)) throw error;
    return { valid: false, reason: error.message, ...identify(parsed) };
  }
}

function identify(parsed: ParsedSignature | undefined): { keyId?: string; created?: number } {
  return parsed ? { keyId: parsed.params.keyId, created: parsed.params.created } : {};
}
