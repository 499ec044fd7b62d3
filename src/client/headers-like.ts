/** Response headers or metadata as fetch, node:http and grpc-js hand them over. */
export type HeadersLike =
  | Headers
  | Iterable<readonly [string, string]>
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** One field value: repeated fields joined with ", " as RFC 9421 section 2.1 prescribes. */
export function headerValue(headers: HeadersLike, name: string): string | undefined {
  const wanted = name.toLowerCase();
  if (typeof (headers as Headers).get === "function" && typeof (headers as Headers).has === "function") {
    const value = (headers as Headers).get(wanted);
    return value === null ? undefined : trimField(value);
  }
  const values: string[] = [];
  const entries: Iterable<readonly [string, unknown]> =
    Symbol.iterator in headers ? (headers as Iterable<readonly [string, string]>) : Object.entries(headers);
  for (const [key, value] of entries) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    if (Array.isArray(value)) values.push(...(value as string[]));
    else values.push(String(value));
  }
  return values.length === 0 ? undefined : values.map(trimField).join(", ");
}

/**
 * A field value without the spaces and tabs around it (RFC 9110 5.5, RFC 9421 2.1): only those.
 * String.prototype.trim() also took line separators and other Unicode spaces, so a Content-Type
 * with a trailing U+2028 verified as the one signed.
 */
function trimField(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, "");
}
