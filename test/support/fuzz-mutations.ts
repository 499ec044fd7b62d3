/** Seeded mutations shared by the request-body fuzz tests (JSON route, RPC, /v1/moderations). */

export function pick<T>(next: () => number, list: readonly T[]): T {
  return list[Math.floor(next() * list.length)]!;
}

/** Byte-level damage: a byte replaced, a slice cut, or one of `fragments` spliced in. */
export function mutateBytes(next: () => number, bytes: Uint8Array, fragments: readonly string[]): Uint8Array {
  const at = Math.floor(next() * (bytes.length + 1));
  const kind = Math.floor(next() * 3);
  if (kind === 0 && bytes.length > 0) {
    const out = bytes.slice();
    out[Math.min(at, bytes.length - 1)] = Math.floor(next() * 256);
    return out;
  }
  if (kind === 1) return Uint8Array.from([...bytes.subarray(0, at), ...bytes.subarray(Math.min(bytes.length, at + 1 + Math.floor(next() * 20)))]);
  return Uint8Array.from([...bytes.subarray(0, at), ...new TextEncoder().encode(pick(next, fragments)), ...bytes.subarray(at)]);
}
