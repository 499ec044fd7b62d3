import { QUOTE, COMMA, COLON, OPEN_ARRAY, OPEN_OBJECT, CLOSE_ARRAY, CLOSE_OBJECT, hasEscape, keyText } from "./json-bytes.js";
import { closingQuote } from "./json-depth.js";

/**
 * Most object members and array elements a JSON route's body may hold, at every depth together.
 * The largest valid request holds fewer than 50 (ten items of three fields); without a bound, 60 MB
 * of one item with five million unknown keys kept JSON.parse on the event loop for 6.8 s, before
 * the first unknown key could be refused.
 */
export const MAX_JSON_VALUES = 1_000;

/** What a JSON text's structure holds, read without parsing it (outlineJson). */
export interface JsonOutline {
  /** Elements of the array under the asked key of the top-level object (the most, if the key repeats); undefined when there is none. */
  listLength: number | undefined;
  /** Deepest nesting of arrays and objects. */
  depth: number;
  /** Object members and array elements, at every depth. */
  values: number;
}

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * Outlines the JSON text in `bytes` (UTF-8) in one pass, allocating nothing per value: brackets,
 * commas and keys outside strings are read, and a string is skipped to its closing quote with a
 * native search (json-depth.ts), so a body of base64 images costs about what copying it does. It
 * lets a route refuse a body by its size in items or values before JSON.parse builds it (60 MB of
 * 2.2 million tiny items took 1.5 s to parse and check). Malformed text is outlined as far as it
 * reads; JSON.parse reports it afterwards.
 */
export function outlineJson(bytes: Uint8Array, listKey: string): JsonOutline {
  const key = Buffer.from(listKey);
  let depth = 0;
  let deepest = 0;
  let values = 0;
  let topIsObject = false;
  // At depth 1 of an object: a string now is a member's key; and whether the last key was listKey.
  let expectKey = false;
  let keyIsList = false;
  // The list under listKey, while it is open.
  let listOpen = false;
  let listCount = 0;
  let longest: number | undefined;
  // The last byte opened an array or object, or was a comma: the next one, unless it closes it
  // (or is another comma), starts a value.
  let justOpened = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (isSpace(b)) continue;
    if (justOpened) {
      justOpened = false;
      // A comma straight after an opening bracket or another comma, or a bracket closing after a
      // comma (`[1,]`), starts no value: it is not counted, and JSON.parse refuses the text.
      if (b !== CLOSE_ARRAY && b !== CLOSE_OBJECT && b !== COMMA) {
        values++;
        if (listOpen && depth === 2) listCount++;
      }
    }
    if (b === QUOTE) {
      const close = closingQuote(bytes, i);
      if (close < 0) break;
      if (depth === 1) keyIsList = expectKey && topIsObject && isKey(bytes, i, close, key);
      expectKey = false;
      i = close;
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (depth === 0) topIsObject = b === OPEN_OBJECT;
      if (depth === 1 && b === OPEN_ARRAY && keyIsList) {
        listOpen = true;
        listCount = 0;
      }
      if (depth === 1) keyIsList = false;
      if (++depth > deepest) deepest = depth;
      justOpened = true;
      expectKey = b === OPEN_OBJECT;
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
      if (listOpen && depth === 2) {
        listOpen = false;
        longest = Math.max(longest ?? 0, listCount);
      }
      depth--;
      expectKey = false;
    } else if (b === COMMA) {
      // The value after it is counted when it starts: a trailing comma (`[{…},]`) adds no item.
      justOpened = true;
      if (depth === 1) expectKey = topIsObject;
    } else if (b !== COLON && depth === 1) {
      // A number or literal as a top-level member's value.
      keyIsList = false;
    }
  }
  return { listLength: longest, depth: deepest, values };
}

/** Whether the string at bytes[open..close] (quotes included) reads as `key`, escapes decoded as JSON.parse does. */
function isKey(bytes: Uint8Array, open: number, close: number, key: Buffer): boolean {
  if (!hasEscape(bytes, open, close)) return close - open - 1 === key.length && key.equals(bytes.subarray(open + 1, close));
  try {
    return keyText(bytes, open, close) === key.toString("utf8");
  } catch {
    // A malformed escape: JSON.parse refuses the body afterwards.
    return false;
  }
}
