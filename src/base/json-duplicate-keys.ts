import { QUOTE, COMMA, COLON, OPEN_ARRAY, OPEN_OBJECT, CLOSE_ARRAY, CLOSE_OBJECT, hasEscape, keyText } from "./json-bytes.js";
import { closingQuote } from "./json-depth.js";

/** Marks an open array on the stack of open objects' first keys. */
const ARRAY = -1;

/** Keys an object may hold before its keys are kept in a set rather than compared one by one. */
const FEW_KEYS = 16;

/**
 * The first key that one object of the JSON text in `bytes` (UTF-8, already accepted by
 * JSON.parse) holds twice, at any depth; undefined when there is none. JSON.parse keeps the last
 * of two equal keys and other parsers the first, so `{"text":"I will kill you","text":"have a nice
 * day"}` was judged on its second text, and the signed "not flagged", bound to these very bytes,
 * read as the verdict on the first. Keys compare as JSON.parse decodes them ("\u0074ext" is
 * "text"). Strings are skipped with a native search (json-depth.ts), and the few keys of an
 * ordinary object are compared as bytes where they lie (no string, no set: a 10-item request
 * costs about two microseconds); an object of more keys keeps them in a set.
 */
export function firstDuplicateKey(bytes: Uint8Array): string | undefined {
  // Every key of the open objects, as [opening quote, closing quote] positions, innermost last.
  const keys: number[] = [];
  // For each open object, where its keys start in `keys` (ARRAY for an open array), and its set once it has many.
  const open: number[] = [];
  const sets: (Set<string> | undefined)[] = [];
  let expectKey = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === QUOTE) {
      const close = closingQuote(bytes, i);
      if (close < 0) return undefined;
      const first = open[open.length - 1];
      if (expectKey && first !== undefined && first !== ARRAY) {
        const duplicate = addKey(bytes, keys, first, sets, open.length - 1, i, close);
        if (duplicate !== undefined) return duplicate;
      }
      expectKey = false;
      i = close;
    } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      open.push(b === OPEN_OBJECT ? keys.length : ARRAY);
      sets.push(undefined);
      expectKey = b === OPEN_OBJECT;
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
      const first = open.pop();
      sets.pop();
      if (first !== undefined && first !== ARRAY) keys.length = first;
      expectKey = false;
    } else if (b === COMMA) {
      const first = open[open.length - 1];
      expectKey = first !== undefined && first !== ARRAY;
    } else if (b === COLON) {
      expectKey = false;
    }
  }
  return undefined;
}

/** Adds the key at open..close to the innermost object (its keys from `first` on); returns it when the object already holds it. */
function addKey(bytes: Uint8Array, keys: number[], first: number, sets: (Set<string> | undefined)[], level: number, open: number, close: number): string | undefined {
  const set = sets[level];
  if (set) {
    const key = keyText(bytes, open, close);
    if (set.has(key)) return key;
    set.add(key);
    return undefined;
  }
  for (let k = first; k < keys.length; k += 2) {
    if (sameKey(bytes, keys[k]!, keys[k + 1]!, open, close)) return keyText(bytes, open, close);
  }
  keys.push(open, close);
  if (keys.length - first > 2 * FEW_KEYS) {
    const many = new Set<string>();
    for (let k = first; k < keys.length; k += 2) many.add(keyText(bytes, keys[k]!, keys[k + 1]!));
    sets[level] = many;
  }
  return undefined;
}

/** Whether two quoted keys read the same: byte for byte, or once decoded when either holds an escape. */
function sameKey(bytes: Uint8Array, open1: number, close1: number, open2: number, close2: number): boolean {
  if (hasEscape(bytes, open1, close1) || hasEscape(bytes, open2, close2)) return keyText(bytes, open1, close1) === keyText(bytes, open2, close2);
  if (close1 - open1 !== close2 - open2) return false;
  for (let a = open1 + 1, b = open2 + 1; a < close1; a++, b++) if (bytes[a] !== bytes[b]) return false;
  return true;
}
