import { ERROR_CODE_HEADER } from "../errors/api-error.js";
import { REQUEST_DIGEST_HEADER, RESPONSE_DIGEST_HEADER, RPC_STATUS_HEADER } from "./headers.js";
import { signComponents } from "./http-signature.js";
import { scopeFields, type SignatureScope } from "./scope.js";
import { sha256DigestHeader } from "./sha256.js";
import type { Signer } from "./signer.js";

/** What a gRPC / gRPC-Web / Connect caller receives, reduced to what the signature binds. */
type RpcOutcome =
  /** Canonical bytes of the response message (see canonical-message.ts). */
  | { ok: true; messageBytes: Uint8Array }
  /** gRPC status code (1-16), the error message as sent, and our stable x-error-code if any. */
  | { ok: false; code: number; message: string; errorCode?: string };

/**
 * Signs an RPC result. The signature base uses RFC 9421 syntax over metadata fields only
 * (no derived components like "@status", which mean nothing for gRPC), so every covered
 * value travels in the response metadata. Returns the metadata to add, lower-case.
 * The scheme's primitive: callers go through signOutcome (sign-outcome.ts), which decides the bytes.
 */
export async function signRpcOutcome(
  signer: Signer,
  input: { requestBytes: Uint8Array; outcome: RpcOutcome; created?: number; scope?: SignatureScope | undefined },
): Promise<Record<string, string>> {
  const { outcome } = input;
  const responseDigest = sha256DigestHeader(outcome.ok ? outcome.messageBytes : outcome.message);
  const requestDigest = sha256DigestHeader(input.requestBytes);
  const status = outcome.ok ? "0" : String(outcome.code);
  const components: string[] = [RPC_STATUS_HEADER];
  const values = new Map<string, string>([[RPC_STATUS_HEADER, status]]);
  if (!outcome.ok && outcome.errorCode !== undefined) {
    components.push(ERROR_CODE_HEADER);
    values.set(ERROR_CODE_HEADER, outcome.errorCode);
  }
  components.push(RESPONSE_DIGEST_HEADER, REQUEST_DIGEST_HEADER); // RPC_SIGNED_COMPONENTS, in order
  values.set(RESPONSE_DIGEST_HEADER, responseDigest);
  values.set(REQUEST_DIGEST_HEADER, requestDigest);
  const scope = scopeFields(input.scope);
  for (const [name, value] of scope) {
    components.push(name);
    values.set(name, value);
  }
  const signed = await signComponents(signer, components, values, input.created);
  return { [RPC_STATUS_HEADER]: status, [RESPONSE_DIGEST_HEADER]: responseDigest, [REQUEST_DIGEST_HEADER]: requestDigest, ...Object.fromEntries(scope), ...signed };
}
