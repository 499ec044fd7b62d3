/**
 * Code points, as the API counts text (MAX_TEXT_CODE_POINTS) and as evidence spans give offsets.
 * One rule throughout, the string iterator's (`Array.from(text)`, `for…of`): a high surrogate
 * followed by a low one is one code point; any other surrogate, alone, counts as one too.
 */

/** Whether `text` holds a surrogate (UTF-16 unit 0xD800-0xDFFF): without one, a code point is one unit. */
const SURROGATE = /[\ud800-\udfff]/;

/**
 * Code points in `text`, counting no further than `stopAt` (texts can be huge: a caller that only
 * compares with a limit passes the limit plus one).
 */
export function codePointLength(text: string, stopAt = Infinity): number {
  let count = 0;
  for (let i = 0; i < text.length && count < stopAt; i++) {
    const code = text.charCodeAt(i);
    // A high surrogate joins the next unit only when that is a low surrogate; a lone one counts alone.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** The code points of `text`, one string each (a pair of surrogates is one element, a lone surrogate another). */
export function codePointArray(text: string): string[] {
  return Array.from(text);
}

/**
 * Slices `text` by code-point offsets (end exclusive; spans report code points). Without surrogates
 * a code point is one UTF-16 unit, so the offsets index the string as they are and no code-point
 * array is built; with them, the array is built once, for every slice.
 */
export function codePointSlicer(text: string): (start: number, end: number) => string {
  if (!holdsSurrogate(text)) return (start, end) => text.slice(start, end);
  const unitAt = codePointOffsets(text);
  const last = unitAt.length - 1;
  // Past the end is the end, as an array's slice has it.
  return (start, end) => text.slice(unitAt[Math.min(start, last)], unitAt[Math.min(end, last)]);
}

/** Whether `text` holds a surrogate: without one, its code-point offsets are its UTF-16 offsets. */
export function holdsSurrogate(text: string): boolean {
  return SURROGATE.test(text);
}

/** The UTF-16 offset of each code-point offset of `text`, and of its end (as codePointLength counts). */
export function codePointOffsets(text: string): Int32Array {
  const offsets = new Int32Array(text.length + 1);
  let p = 0;
  for (let i = 0; i < text.length; i++, p++) {
    offsets[p] = i;
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  offsets[p] = text.length;
  return offsets.subarray(0, p + 1);
}
