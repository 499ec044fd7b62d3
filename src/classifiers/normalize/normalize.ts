import { foldConfusable } from "./confusables.js";

/**
 * Obfuscation-resistant normalisation, shared by training and inference so both see the same text.
 *
 * Output keeps a map back to the input's code-point offsets, so evidence found in the
 * normalised text can be reported as spans of what the caller sent.
 */
export interface NormalizedText {
  /** Lower-case, de-obfuscated text (one JS string, code points mostly ASCII). */
  text: string;
  /** For each UTF-16 unit of `text`: the input code-point offset it came from. */
  start: Int32Array;
  /** For each UTF-16 unit of `text`: the input code-point offset just after its source. */
  end: Int32Array;
}

// Zero-width and other invisible format characters used to break up words.
const INVISIBLE = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]/u;
const COMBINING = /\p{M}/u;
const LETTER = /\p{L}/u;

// Leetspeak digits/symbols, only rewritten inside a token that also holds letters ("h4te", not "2024").
const LEET: Record<string, string> = {
  "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g",
  "@": "a", $: "s", "!": "i", "|": "i", "€": "e", "£": "l", "+": "t",
};

// Separators that obfuscators put between single letters ("k i l l", "k.i.l.l", "k-i-l-l").
const SPACER = new Set([" ", ".", "-", "_", "*", "~", "/", "·"]);

/** Parallel arrays (not one object per character): normalisation runs on every request. */
interface Units { ch: string[]; start: number[]; end: number[] }

const LOWER_ASCII: string[] = Array.from({ length: 128 }, (_, c) => (c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : isSpaceCode(c) ? " " : String.fromCharCode(c)));

/** Step 1: per code point, fold compatibility forms, diacritics, look-alikes and case; drop invisibles. */
function foldCodePoints(input: string): Units {
  const u: Units = { ch: [], start: [], end: [] };
  let cp = 0;
  for (let i = 0; i < input.length; i++) {
    const code = input.charCodeAt(i);
    const at = cp++;
    if (code < 128) {
      u.ch.push(LOWER_ASCII[code]!);
      u.start.push(at);
      u.end.push(at + 1);
      continue;
    }
    const point = input.codePointAt(i) ?? code;
    const raw = String.fromCodePoint(point);
    if (point > 0xffff) i++;
    if (INVISIBLE.test(raw)) continue;
    if (/\s/u.test(raw)) {
      u.ch.push(" ");
      u.start.push(at);
      u.end.push(at + 1);
      continue;
    }
    const decomposed = (foldConfusable(raw) ?? raw).normalize("NFKD");
    for (const part of decomposed) {
      if (COMBINING.test(part)) continue;
      const folded = foldConfusable(part) ?? part.toLowerCase();
      for (const out of folded) {
        u.ch.push(out);
        u.start.push(at);
        u.end.push(at + 1);
      }
    }
  }
  return u;
}

function isSpaceCode(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

function isLetter(ch: string): boolean {
  return (ch >= "a" && ch <= "z") || (ch > "\u007f" && LETTER.test(ch));
}

/** Step 2: leetspeak inside tokens that contain at least one letter. */
function undoLeet(u: Units): void {
  const chars = u.ch;
  let i = 0;
  const wordish = (c: string): boolean => isLetter(c) || LEET[c] !== undefined;
  while (i < chars.length) {
    if (chars[i] === " ") { i++; continue; }
    let j = i;
    let letters = 0;
    let leet = 0;
    while (j < chars.length && chars[j] !== " ") {
      if (isLetter(chars[j]!)) letters++;
      else if (LEET[chars[j]!] !== undefined) leet++;
      j++;
    }
    if (letters > 0 && leet > 0) {
      for (let k = i; k < j; k++) {
        const c = chars[k]!;
        const mapped = LEET[c];
        if (mapped === undefined) continue;
        const prev = k > i ? chars[k - 1]! : "";
        const next = k + 1 < j ? chars[k + 1]! : "";
        // "!", "|" and "+" stand for letters only between letters ("sh!t"); "$" also at a word end ("a$$").
        if ((c === "!" || c === "|" || c === "+") && !(isLetter(prev) && isLetter(next))) continue;
        if (c === "$" && !wordish(prev)) continue;
        if (!wordish(prev) && !wordish(next)) continue;
        chars[k] = mapped;
      }
    }
    i = j;
  }
}

/** Step 3: join runs of >= 3 single letters split by one spacer ("k i l l" -> "kill"). */
function joinSpacedLetters(u: Units): Units {
  const chars = u.ch;
  const letterAt = (k: number): boolean => k >= 0 && k < chars.length && isLetter(chars[k]!);
  // Copy-on-first-join: text without spaced-out letters (almost all of it) is returned as is.
  let out: Units | undefined;
  const keep = (k: number): void => {
    if (!out) return;
    out.ch.push(chars[k]!);
    out.start.push(u.start[k]!);
    out.end.push(u.end[k]!);
  };
  let i = 0;
  while (i < chars.length) {
    // A lone letter (no letter on either side) opens a candidate run.
    if (letterAt(i) && !letterAt(i - 1) && !letterAt(i + 1)) {
      const spacer = chars[i + 1];
      let last = i;
      let count = 1;
      // One spacer kind per run, so "k.i.l.l y.o.u" stays two words.
      while (spacer !== undefined && SPACER.has(spacer) && chars[last + 1] === spacer && letterAt(last + 2) && !letterAt(last + 3)) {
        last += 2;
        count++;
      }
      if (count >= 3) {
        out ??= { ch: chars.slice(0, i), start: u.start.slice(0, i), end: u.end.slice(0, i) };
        for (let k = i; k <= last; k += 2) keep(k);
        i = last + 1;
        continue;
      }
    }
    keep(i);
    i++;
  }
  return out ?? u;
}

/** Normalise text for feature extraction and lexicon matching. Pure and deterministic. */
export function normalizeText(input: string): NormalizedText {
  const folded = foldCodePoints(input);
  undoLeet(folded);
  const u = joinSpacedLetters(folded);
  // Step 4: collapse repeated letters ("kiiiill" -> "kil") and runs of spaces; trim.
  // Offsets go straight into typed arrays (a unit is at most two UTF-16 code units).
  const units = u.ch.length;
  const start = new Int32Array(units * 2);
  const end = new Int32Array(units * 2);
  const parts: string[] = [];
  let n = 0;
  let last = " ";
  for (let k = 0; k < units; k++) {
    const c = u.ch[k]!;
    if (c === last && (c === " " || isLetter(c))) {
      if (n > 0) end[n - 1] = u.end[k]!;
      continue;
    }
    last = c;
    parts.push(c);
    for (let q = 0; q < c.length; q++) {
      start[n] = u.start[k]!;
      end[n] = u.end[k]!;
      n++;
    }
  }
  const text = parts.join("");
  let m = n;
  while (m > 0 && text.charCodeAt(m - 1) === 32) m--;
  return { text: m === n ? text : text.slice(0, m), start: start.slice(0, m), end: end.slice(0, m) };
}

/** Convenience for callers that need only the string (training, lexicon building). */
export function normalizeForMatching(input: string): string {
  return normalizeText(input).text;
}
