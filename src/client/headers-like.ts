/** Response headers or metadata as fetch, node:http and grpc-js hand them over. */
export type HeadersLike =
  | Headers
  | Iterable<readonly [string, string]>
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** One field value: repeated fields joined with ", " as RFC 9421 section 2.1 prescribes. */
export function headerValue(headers: HeadersLike, name: string): string | undefined {
  const wanted = name.toLowerCase();
  if (typeof (headers as Headers).get === "function" && typeof (headers as Headers).has === "function") {
    return (headers as Headers).get(wanted) ?? undefined;
  }
  const values: string[] = [];
  const entries: Iterable<readonly [string, unknown]> =
    Symbol.iterator in headers ? (headers as Iterable<readonly [string, string]>) : Object.entries(headers);
  for (const [key, value] of entries) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    if (Array.isArray(value)) values.push(...(value as string[]));
    else values.push(String(value));
  }
  return values.length === 0 ? undefined : values.map((v) => v.trim()).join(", ");
}
