import { clone, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";

/**
 * The bytes an RPC signature covers: the protobuf binary encoding with fields in
 * field-number order, map entries sorted by key, and no unknown fields. That is what
 * "deterministic" serialization produces in Go, Java, C++ and Python, so a caller whose schema
 * is exactly the server's can rebuild it; one with an older schema must keep the bytes it
 * received, as re-serializing moves or drops the fields it does not know (docs/signing.md).
 * Pure code, shared with the client.
 */
export function canonicalMessageBytes<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): Uint8Array {
  // Sort a copy: the caller's message is not ours to reorder.
  const sorted = hasMaps(schema) ? sortMapsInPlace(schema, clone(schema, message)) : message;
  return toBinary(schema, sorted, { writeUnknownFields: false });
}

/**
 * Reorders every map in `message` (recursively) by key, in place, and returns it. The
 * server runs this on responses before they are sent, so the bytes on the wire for
 * gRPC and Connect+proto are exactly the signed bytes. Map order carries no meaning in
 * protobuf. Keys compare by their UTF-8 bytes (code point order), as deterministic serialization
 * sorts them in Go, C++ and Python; by UTF-16 code unit, a key above U+FFFF sorted before one in
 * U+E000-U+FFFF, and a verifier in those languages built other request bytes.
 */
export function sortMapsInPlace<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): MessageShape<Desc> {
  if (!hasMaps(schema)) return message;
  const record = message as unknown as Record<string, unknown>;
  for (const field of schema.fields) {
    const value = field.oneof ? oneofValue(record, field.oneof.localName, field.localName) : record[field.localName];
    if (value === undefined || value === null) continue;
    if (field.fieldKind === "map") {
      const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => compareUtf8(a, b));
      const sorted: Record<string, unknown> = {};
      for (const [key, entry] of entries) {
        const value = field.mapKind === "message" ? sortMapsInPlace(field.message, entry as MessageShape<DescMessage>) : entry;
        // "__proto__" is defined, not assigned: `sorted["__proto__"] = 0.5` sets no key, and a request
        // with that key (a caller's policy thresholds) got the digest of the same request without it.
        if (key === "__proto__") Object.defineProperty(sorted, key, { value, enumerable: true, writable: true, configurable: true });
        else sorted[key] = value;
      }
      record[field.localName] = sorted;
    } else if (field.fieldKind === "list" && field.listKind === "message") {
      for (const item of value as MessageShape<DescMessage>[]) sortMapsInPlace(field.message, item);
    } else if (field.fieldKind === "message") {
      sortMapsInPlace(field.message, value as MessageShape<DescMessage>);
    }
  }
  return message;
}

function oneofValue(record: Record<string, unknown>, oneof: string, field: string): unknown {
  const selected = record[oneof] as { case?: string; value?: unknown } | undefined;
  return selected?.case === field ? selected.value : undefined;
}

const mapsCache = new WeakMap<DescMessage, boolean>();

/** Whether any map can occur in messages of this schema (cached per schema). */
function hasMaps(schema: DescMessage): boolean {
  let result = mapsCache.get(schema);
  if (result === undefined) {
    result = searchMaps(schema, new Set());
    mapsCache.set(schema, result);
  }
  return result;
}

function searchMaps(schema: DescMessage, seen: Set<DescMessage>): boolean {
  if (seen.has(schema)) return false;
  seen.add(schema);
  return schema.fields.some(
    (f) =>
      f.fieldKind === "map" ||
      (f.fieldKind === "message" && searchMaps(f.message, seen)) ||
      (f.fieldKind === "list" && f.listKind === "message" && searchMaps(f.message, seen)),
  );
}

/** Orders two strings as their UTF-8 bytes would: by code point, not by UTF-16 code unit. */
function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Units differ: where one is a surrogate (an astral code point) and the other is at or above
    // U+E000, code point order puts the surrogate's code point last.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs && !ys && y >= 0xe000) return 1;
    if (ys && !xs && x >= 0xe000) return -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}
