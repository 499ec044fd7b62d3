import { signHttpResponse, type HttpSignatureHeaders } from "./http-signature.js";
import type { Signer } from "./signer.js";

/** The Content-Type src/http/send-json.ts sends; the signature covers it verbatim. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * A JSON answer as signed: its text, whose UTF-8 bytes (`byteLength` of them) the signature
 * covers, and the signature headers. The text, not the bytes, travels on: Node writes a string
 * body with the response head in one piece (a Buffer body is a second chunk, a writev), and a
 * string crosses threads in one copy. Node's UTF-8 encoder makes the same bytes every time.
 */
export interface SignedJson {
  json: string;
  byteLength: number;
  headers: HttpSignatureHeaders;
}

/**
 * Serializes a JSON-route answer once and signs those bytes: the route sends `json` as it is
 * (sendJsonSignedAhead), so what is signed is exactly what goes on the wire.
 */
export async function signJsonBody(
  signer: Signer,
  response: { status: number; body: unknown; requestBody: Uint8Array | undefined; nowMs: number },
): Promise<SignedJson> {
  return signJsonText(signer, { ...response, json: JSON.stringify(response.body) });
}

/** signJsonBody for a body already rendered as JSON text. */
export async function signJsonText(
  signer: Signer,
  response: { status: number; json: string; requestBody: Uint8Array | undefined; nowMs: number },
): Promise<SignedJson> {
  const bytes = Buffer.from(response.json, "utf8");
  const headers = await signHttpResponse(signer, {
    status: response.status,
    contentType: JSON_CONTENT_TYPE,
    body: bytes,
    // undefined: the route refused the body unread (too large); bind to "no body".
    requestBody: response.requestBody ?? new Uint8Array(),
    created: Math.floor(response.nowMs / 1000),
  });
  return { json: response.json, byteLength: bytes.byteLength, headers };
}
