/*
 * Characters put inside a word to break it for a filter but not for a reader: emoji
 * ("ki🔪ll", "kill🔪"), flag letters ("🇰🇮🇱🇱") and paired markdown emphasis ("k**ill**").
 * Measured before these steps (25 plainly harmful sentences the shipped model flags): an emoji
 * between letters left 0 of 25 flagged, glued to a word 7, paired emphasis 0.
 */

/**
 * Units being normalised (normalize.ts): code points, and for each the input code-point offsets it
 * came from, `at` up to `to` (exclusive): one code point, or a whole escape ("&#107;" is one "k").
 */
export interface Units {
  cps: Int32Array;
  at: Int32Array;
  to: Int32Array;
  length: number;
}

export function push(u: Units, point: number, at: number, to = at + 1): void {
  if (u.length === u.cps.length) {
    const cps = new Int32Array(u.length * 2), ats = new Int32Array(u.length * 2), tos = new Int32Array(u.length * 2);
    cps.set(u.cps);
    ats.set(u.at);
    tos.set(u.to);
    u.cps = cps;
    u.at = ats;
    u.to = tos;
  }
  u.cps[u.length] = point;
  u.at[u.length] = at;
  u.to[u.length++] = to;
}

/** Moves unit `from` to `into` (at or before it), when a step compacts the units in place. */
export function moveUnit(u: Units, from: number, into: number): void {
  u.cps[into] = u.cps[from]!;
  u.at[into] = u.at[from]!;
  u.to[into] = u.to[from]!;
}

const SPACE = 32;
const REGIONAL_A = 0x1f1e6;
const REGIONAL_Z = 0x1f1ff;
const PICTOGRAPH = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}/u;
/** Per code point below 0x20000 (every emoji is): 0 = not asked yet, 1 = pictograph, 2 = not. */
const pictographMemo = new Uint8Array(0x20000);

/** An emoji, a skin-tone modifier or a flag letter (Unicode's Extended_Pictographic and kin). */
export function isPictograph(point: number): boolean {
  if (point < 0xa9) return false;
  if (point >= 0x20000) return false;
  let known = pictographMemo[point]!;
  if (known === 0) {
    known = PICTOGRAPH.test(String.fromCodePoint(point)) ? 1 : 2;
    pictographMemo[point] = known;
  }
  return known === 1;
}

const isRegional = (point: number): boolean => point >= REGIONAL_A && point <= REGIONAL_Z;

/**
 * Emoji inside a word are dropped ("ki🔪ll" is "kill"), emoji glued to a word are parted from it by
 * a space ("kill🔪" is "kill 🔪", two tokens the model knows, not one it never saw), and a run of
 * flag letters that is not one flag (two of them) is read as the letters it spells. Writes the
 * result into `out` (emptied first) and returns true; returns false, writing nothing, when no
 * pictograph touches a letter and none is a flag letter (most text with emoji: "good 😂 thanks").
 * `isLetter` is the normaliser's letter test.
 */
export function separatePictographs(u: Units, out: Units, isLetter: (point: number) => boolean): boolean {
  const { cps, at, to, length } = u;
  if (!touchesLetters(u, isLetter)) return false;
  out.length = 0;
  let k = 0;
  while (k < length) {
    if (!isPictograph(cps[k]!)) {
      push(out, cps[k]!, at[k]!, to[k]!);
      k++;
      continue;
    }
    let end = k;
    let regional = 0;
    while (end < length && isPictograph(cps[end]!)) {
      if (isRegional(cps[end]!)) regional++;
      end++;
    }
    const runLength = end - k;
    if (regional === runLength && runLength !== 2) {
      for (let j = k; j < end; j++) push(out, cps[j]! - REGIONAL_A + 97, at[j]!, to[j]!);
      k = end;
      continue;
    }
    const letterBefore = out.length > 0 && isLetter(out.cps[out.length - 1]!);
    const letterAfter = end < length && isLetter(cps[end]!);
    if (!(letterBefore && letterAfter)) {
      if (letterBefore) push(out, SPACE, at[k]!);
      for (let j = k; j < end; j++) push(out, cps[j]!, at[j]!, to[j]!);
      if (letterAfter) push(out, SPACE, at[end - 1]!);
    }
    k = end;
  }
  return true;
}

function touchesLetters(u: Units, isLetter: (point: number) => boolean): boolean {
  const { cps, length } = u;
  for (let k = 0; k < length; k++) {
    const c = cps[k]!;
    if (!isPictograph(c)) continue;
    if (isRegional(c) || (k > 0 && isLetter(cps[k - 1]!)) || (k + 1 < length && isLetter(cps[k + 1]!))) return true;
  }
  return false;
}

const EMPHASIS = new Set([42, 95, 126]); // * _ ~

/** Whether the code point can start markdown emphasis (so that most text skips the step). */
export function isEmphasisMark(point: number): boolean {
  return EMPHASIS.has(point);
}

/**
 * Removes markdown emphasis: from a space-delimited word that holds it paired ("k**ill**",
 * "**kill**", "~~kill~~"; runs of two or more of one mark, at least two runs in the word), and
 * around several words, a run opening a word closed by the same run ending a later one
 * ("**Kill yourself, nobody would miss you.**", "_you idiot_"; the marks were glued into the
 * first and last words, "**kil", and 29 of 352 written sentences lost every flag). A run left
 * alone stays, since "f**k" and "sh**" are masked words the tokenizer keeps whole. Compacts in place.
 * A single "*" pair inside a word stays too: "k*i*ll" (emphasis hiding "kill") cannot be told from
 * "n*gg*rs" (a masked slur, whose hate flag dropping the marks lost; a review), and masking is the
 * commoner; nor is the backtick emphasis (LaTeX quotes, ``so'', are common in prose).
 */
export function stripPairedEmphasis(u: Units): void {
  const { cps } = u;
  const length = u.length;
  const spans = emphasisSpans(cps, length);
  let w = 0;
  let i = 0;
  while (i < length) {
    if (cps[i] === SPACE) {
      moveUnit(u, i++, w++);
      continue;
    }
    let end = i;
    while (end < length && cps[end] !== SPACE) end++;
    const paired = emphasisRuns(cps, i, end) >= 2;
    // Run by run (one mark repeated): the write position never passes the read one.
    for (let j = i; j < end; ) {
      const c = cps[j]!;
      let runEnd = j + 1;
      while (runEnd < end && cps[runEnd] === c) runEnd++;
      if (!((paired && EMPHASIS.has(c) && runEnd - j >= 2) || spans.has(j))) {
        for (let t = j; t < runEnd; t++) moveUnit(u, t, w++);
      }
      j = runEnd;
    }
    i = end;
  }
  u.length = w;
}

/**
 * Starts of the emphasis runs that open and close a span across words: a run at the start of a
 * word (before anything else in it) paired with the nearest earlier-opened run of the same mark
 * and length that ends a word (after everything else in it).
 */
function emphasisSpans(cps: Int32Array, length: number): Set<number> {
  const found = new Set<number>();
  // Open runs by mark and length, each a stack: a closing run pairs with its top in constant time.
  const open = new Map<number, number[]>();
  for (let i = 0; i < length; ) {
    if (cps[i] === SPACE) {
      i++;
      continue;
    }
    let end = i;
    while (end < length && cps[end] !== SPACE) end++;
    let leadEnd = i;
    while (leadEnd < end && cps[leadEnd] === cps[i]) leadEnd++;
    let trailStart = end;
    while (trailStart > i && cps[trailStart - 1] === cps[end - 1]) trailStart--;
    // A word of marks alone is neither: its run both starts and ends it.
    if (leadEnd < end) {
      if (EMPHASIS.has(cps[i]!)) {
        const key = cps[i]! * 65536 + Math.min(leadEnd - i, 65535);
        const stack = open.get(key);
        if (stack) stack.push(i);
        else open.set(key, [i]);
      }
      if (EMPHASIS.has(cps[end - 1]!) && trailStart > i) {
        const opened = open.get(cps[end - 1]! * 65536 + Math.min(end - trailStart, 65535))?.pop();
        if (opened !== undefined) {
          found.add(opened);
          found.add(trailStart);
        }
      }
    }
    i = end;
  }
  return found;
}

function emphasisRuns(cps: Int32Array, from: number, to: number): number {
  let runs = 0;
  for (let j = from; j < to; ) {
    const c = cps[j]!;
    let end = j + 1;
    while (end < to && cps[end] === c) end++;
    if (EMPHASIS.has(c) && end - j >= 2) runs++;
    j = end;
  }
  return runs;
}
