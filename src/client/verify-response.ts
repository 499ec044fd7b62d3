import { CONTENT_DIGEST_HEADER, HTTP_SIGNED_COMPONENTS, REQUEST_DIGEST_HEADER } from "../signing/headers.js";
import { headerValue, type HeadersLike } from "./headers-like.js";
import { readSignature, requireComponents, requireDigest, requireInput, requireScope, requireValidSignature, runChecks, VerificationFailure, type VerifyOptions, type VerifyResult } from "./verify-signature.js";

export type { VerifyResult } from "./verify-signature.js";

export interface HttpResponseToVerify extends VerifyOptions {
  /** The exact request body bytes that were sent (a string is taken as UTF-8). */
  requestBody: Uint8Array | string;
  status: number;
  headers: HeadersLike;
  /** The exact response body bytes received. */
  body: Uint8Array | string;
}

/**
 * Verifies a signed POST /v1/moderate response: the body matches Content-Digest, the
 * signature covers status, content type and both digests, it verifies with a key from the
 * JWKS, and Moderation-Request-Digest matches the request body this caller sent, so a
 * verdict signed for other content is rejected; with `expect`, the route and account it was
 * signed for are the caller's. Uses only WebCrypto: runs in browsers too.
 */
export async function verifyModerationResponse(input: HttpResponseToVerify): Promise<VerifyResult> {
  return runChecks(async (note) => {
    requireInput({ headers: input.headers, body: input.body, requestBody: input.requestBody });
    const parsed = readSignature(input.headers);
    note(parsed);
    requireComponents(parsed, HTTP_SIGNED_COMPONENTS);
    requireScope(parsed, input.headers, input);
    const contentDigest = headerValue(input.headers, CONTENT_DIGEST_HEADER);
    const requestDigest = headerValue(input.headers, REQUEST_DIGEST_HEADER);
    await requireDigest(contentDigest, toBytes(input.body), "Content-Digest", "the body does not match Content-Digest");
    await requireDigest(
      requestDigest,
      toBytes(input.requestBody),
      "Moderation-Request-Digest",
      "the response was signed for a different request body",
    );
    const values = new Map<string, string>();
    for (const name of parsed.params.components) {
      if (name.startsWith("@") && name !== "@status") throw new VerificationFailure(`unsupported component "${name}"`);
      const value = name === "@status" ? String(input.status) : headerValue(input.headers, name);
      if (value === undefined) throw new VerificationFailure(`covered header "${name}" is missing`);
      values.set(name, value);
    }
    await requireValidSignature(parsed, values, input);
  });
}

function toBytes(data: Uint8Array | string): Uint8Array {
  return typeof data === "string" ? new TextEncoder().encode(data) : data;
}
