import type { ConnectError } from "@connectrpc/connect";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { ERROR_CODE_HEADER } from "../errors/api-error.js";
import { canonicalMessageBytes } from "../signing/canonical-message.js";
import { REQUEST_DIGEST_HEADER, RESPONSE_DIGEST_HEADER, RPC_SIGNED_COMPONENTS, RPC_STATUS_HEADER } from "../signing/headers.js";
import { headerValue, type HeadersLike } from "./headers-like.js";
import { readSignature, requireComponents, requireDigest, requireInput, requireScope, requireValidSignature, runChecks, VerificationFailure, type VerifyOptions, type VerifyResult } from "./verify-signature.js";

/** What a gRPC / gRPC-Web / Connect caller received. */
export type ReceivedRpcOutcome =
  /** The response message bytes: raw from the wire, or re-encoded with canonicalMessageBytes. */
  | { ok: true; messageBytes: Uint8Array }
  /** The gRPC status code and error message as received. */
  | { ok: false; code: number; message: string };

export interface RpcResponseToVerify extends VerifyOptions {
  /** Canonical bytes of the request message sent (canonicalMessageBytes(schema, request)). */
  requestBytes: Uint8Array;
  outcome: ReceivedRpcOutcome;
  /** Response headers and trailers, merged (gRPC puts error metadata in trailers). */
  metadata: HeadersLike;
}

/** Verifies a signed gRPC / gRPC-Web / Connect result against the request the caller sent (and, with `expect`, its route and account). */
export async function verifyRpcResponse(input: RpcResponseToVerify): Promise<VerifyResult> {
  return runChecks(async (note) => {
    requireInput({ metadata: input.metadata, outcome: input.outcome, requestBytes: input.requestBytes });
    const { metadata, outcome } = input;
    const parsed = readSignature(metadata);
    note(parsed);
    requireComponents(parsed, RPC_SIGNED_COMPONENTS);
    requireScope(parsed, metadata, input);
    const errorCode = headerValue(metadata, ERROR_CODE_HEADER);
    if (!outcome.ok && errorCode !== undefined) requireComponents(parsed, [ERROR_CODE_HEADER]);
    const status = outcome.ok ? "0" : String(outcome.code);
    if (headerValue(metadata, RPC_STATUS_HEADER) !== status) {
      throw new VerificationFailure(`the signed status is not the status received (${status})`);
    }
    const responseData = outcome.ok ? outcome.messageBytes : new TextEncoder().encode(outcome.message);
    await requireDigest(
      headerValue(metadata, RESPONSE_DIGEST_HEADER),
      responseData,
      "moderation-response-digest",
      outcome.ok ? "the response message does not match its signed digest" : "the error message does not match its signed digest",
    );
    await requireDigest(
      headerValue(metadata, REQUEST_DIGEST_HEADER),
      input.requestBytes,
      "moderation-request-digest",
      "the response was signed for a different request",
    );
    const values = new Map<string, string>();
    for (const name of parsed.params.components) {
      if (name.startsWith("@")) throw new VerificationFailure(`unexpected component "${name}" in an RPC signature`);
      const value = headerValue(metadata, name);
      if (value === undefined) throw new VerificationFailure(`covered metadata "${name}" is missing`);
      values.set(name, value);
    }
    await requireValidSignature(parsed, values, input);
  });
}

/**
 * Convenience for connect-es callers: pass the request message, and either the response
 * message with the headers from `onHeader`, or the ConnectError that was thrown.
 */
export async function verifyConnectResult<I extends DescMessage, O extends DescMessage>(
  input: VerifyOptions & {
    method: { input: I; output: O };
    request: MessageShape<I>;
    result: { message: MessageShape<O>; header: Headers; trailer?: Headers } | { error: ConnectError };
  },
): Promise<VerifyResult> {
  const { method, request, result, ...options } = input;
  const requestBytes = canonicalMessageBytes(method.input, request);
  if ("error" in result) {
    const outcome = { ok: false as const, code: result.error.code, message: result.error.rawMessage };
    const bound = await verifyRpcResponse({ ...options, requestBytes, outcome, metadata: result.error.metadata });
    if (bound.valid) return bound;
    // An error made before the request was decoded (no live key, a body too large, too many items)
    // is bound to an empty request (docs/signing.md): the caller cannot tell which from the code.
    const early = await verifyRpcResponse({ ...options, requestBytes: new Uint8Array(), outcome, metadata: result.error.metadata });
    return early.valid ? early : bound;
  }
  const metadata = new Headers(result.header);
  result.trailer?.forEach((value, name) => metadata.append(name, value));
  return verifyRpcResponse({
    ...options,
    requestBytes,
    outcome: { ok: true, messageBytes: canonicalMessageBytes(method.output, result.message) },
    metadata,
  });
}
