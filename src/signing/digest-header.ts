import { parseDictionary, isInnerList, serializeByteSequenceMember, StructuredFieldError } from "./structured-fields.js";

/** RFC 9530 field value for one SHA-256 digest: `sha-256=:<base64>:`. */
export function formatSha256DigestHeader(digest: Uint8Array): string {
  return serializeByteSequenceMember("sha-256", digest);
}

/** The sha-256 member of a Content-Digest style header, or undefined when absent or malformed. */
export function parseSha256DigestHeader(value: string | null | undefined): Uint8Array | undefined {
  if (!value) return undefined;
  try {
    const member = parseDictionary(value).get("sha-256");
    if (!member || isInnerList(member) || member.item.type !== "bytes") return undefined;
    return member.item.value;
  } catch (error) {
    if (error instanceof StructuredFieldError) return undefined;
    throw error;
  }
}

/** Compares digests without an early exit; timing hardly matters for public data, but it costs nothing. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
