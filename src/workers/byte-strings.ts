/**
 * Bytes as a latin1 string (one char per byte) for messages between threads. Structured clone
 * copies a string in one piece, but gives every Uint8Array its own ArrayBuffer on both sides:
 * measured at several microseconds per array, which made posting jobs the event loop's
 * largest single cost under load.
 */
export function bytesToLatin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}

export function latin1ToBytes(text: string): Buffer {
  return Buffer.from(text, "latin1");
}
