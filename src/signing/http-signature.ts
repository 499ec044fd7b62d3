import {
  ACCOUNT_HEADER,
  CONTENT_DIGEST_HEADER,
  HTTP_SIGNED_COMPONENTS,
  REQUEST_DIGEST_HEADER,
  ROUTE_HEADER,
  SIGNATURE_ALGORITHM,
  SIGNATURE_HEADER,
  SIGNATURE_INPUT_HEADER,
  SIGNATURE_LABEL,
} from "./headers.js";
import { scopeFields, type SignatureScope } from "./scope.js";
import { sha256DigestHeader } from "./sha256.js";
import { buildSignatureBase, toSignatureParamsList } from "./signature-base.js";
import type { Signer } from "./signer.js";
import { serializeByteSequenceMember, serializeInnerList, type InnerList } from "./structured-fields.js";

interface HttpResponseToSign {
  status: number;
  /** Sent verbatim as Content-Type; the route must not let the framework rewrite it. */
  contentType: string;
  /** The exact response body bytes that go on the wire. */
  body: Uint8Array;
  /** The exact request body bytes the caller sent (empty when the body was never read). */
  requestBody: Uint8Array;
  /** Unix seconds; defaults to now. */
  created?: number;
  /** The route and account the answer is for (scope.ts); absent for an answer of no API route (a 404). */
  scope?: SignatureScope | undefined;
}

export type SignatureHeaders = Record<typeof SIGNATURE_INPUT_HEADER | typeof SIGNATURE_HEADER, string>;
export type HttpSignatureHeaders = SignatureHeaders & Record<typeof CONTENT_DIGEST_HEADER | typeof REQUEST_DIGEST_HEADER, string> & Partial<Record<typeof ROUTE_HEADER | typeof ACCOUNT_HEADER, string>>;

/**
 * RFC 9421 signature of a JSON-route response. Returns the headers to add, lower-case:
 * content-digest, moderation-request-digest, the scope's moderation-route and
 * moderation-account when given, signature-input, signature. The route must
 * send `contentType` and `body` exactly as given, after which nothing may touch them.
 */
export async function signHttpResponse(signer: Signer, response: HttpResponseToSign): Promise<HttpSignatureHeaders> {
  const contentDigest = sha256DigestHeader(response.body);
  const requestDigest = sha256DigestHeader(response.requestBody);
  const values = new Map<string, string>([
    ["@status", String(response.status)],
    ["content-type", response.contentType.trim()],
    [CONTENT_DIGEST_HEADER, contentDigest],
    [REQUEST_DIGEST_HEADER, requestDigest],
  ]);
  const scope = scopeFields(response.scope);
  for (const [name, value] of scope) values.set(name, value);
  const signed = await signComponents(signer, scope.length === 0 ? [...HTTP_SIGNED_COMPONENTS] : [...HTTP_SIGNED_COMPONENTS, ...scope.map(([name]) => name)], values, response.created);
  return { [CONTENT_DIGEST_HEADER]: contentDigest, [REQUEST_DIGEST_HEADER]: requestDigest, ...Object.fromEntries(scope), ...signed };
}

/** Signs already-derived component values; returns the Signature-Input and Signature headers. */
export async function signComponents(
  signer: Signer,
  components: string[],
  values: ReadonlyMap<string, string>,
  created: number = Math.floor(Date.now() / 1000),
): Promise<SignatureHeaders> {
  const params = signatureParams(components, created, signer.keyId);
  const base = buildSignatureBase(params.list, values, params.serialized);
  // UTF-8, as TextEncoder would encode it, without a TextEncoder per answer.
  const signature = await signer.sign(Buffer.from(base, "utf8"));
  // Both are one-member dictionaries; the inner list is serialized once (see signatureParams).
  return {
    [SIGNATURE_INPUT_HEADER]: `${SIGNATURE_LABEL}=${params.serialized}`,
    [SIGNATURE_HEADER]: serializeByteSequenceMember(SIGNATURE_LABEL, signature),
  };
}

// The parameters change only with `created` (seconds), so consecutive responses share them.
let lastParams: { key: string; list: InnerList; serialized: string } | undefined;

function signatureParams(components: string[], created: number, keyId: string): { list: InnerList; serialized: string } {
  const key = `${created}\u0000${keyId}\u0000${components.join("\u0000")}`;
  if (lastParams?.key !== key) {
    const list = toSignatureParamsList({ components, created, keyId, alg: SIGNATURE_ALGORITHM });
    lastParams = { key, list, serialized: serializeInnerList(list) };
  }
  return lastParams;
}
