import { signHttpResponse, type HttpSignatureHeaders } from "./http-signature.js";
import type { Signer } from "./signer.js";

/** The Content-Type src/http/send-json.ts sends; the signature covers it verbatim. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * Signature headers for a JSON-route answer, for the route to set just before sendJson.
 * It signs JSON.stringify(body), which is exactly what sendJson writes: JSON.stringify is
 * deterministic for the same object. If sendJson ever serializes differently, the
 * end-to-end tests in test/signing fail.
 */
export function signJsonBody(
  signer: Signer,
  response: { status: number; body: unknown; requestBody: Uint8Array | undefined; nowMs: number },
): HttpSignatureHeaders {
  return signHttpResponse(signer, {
    status: response.status,
    contentType: JSON_CONTENT_TYPE,
    body: new TextEncoder().encode(JSON.stringify(response.body)),
    // undefined: the route refused the body unread (wrong type, too large); bind to "no body".
    requestBody: response.requestBody ?? new Uint8Array(),
    created: Math.floor(response.nowMs / 1000),
  });
}
