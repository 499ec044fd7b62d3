/** The bytes of JSON's structure and its keys, as the scanners of a body read them before it is parsed (json-depth.ts, json-outline.ts, json-duplicate-keys.ts). */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_ARRAY = 0x5b;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_ARRAY = 0x5d;
export const CLOSE_OBJECT = 0x7d;

/** Whether the string whose quotes are at `open` and `close` holds an escape. */
export function hasEscape(bytes: Uint8Array, open: number, close: number): boolean {
  for (let i = open + 1; i < close; i++) if (bytes[i] === BACKSLASH) return true;
  return false;
}

/** The key whose quotes are at `open` and `close`, as JSON.parse reads it (which throws on a malformed escape). */
export function keyText(bytes: Uint8Array, open: number, close: number): string {
  const quoted = Buffer.from(bytes.buffer, bytes.byteOffset + open, close + 1 - open);
  return hasEscape(bytes, open, close) ? (JSON.parse(quoted.toString("utf8")) as string) : quoted.toString("utf8", 1, quoted.length - 1);
}
