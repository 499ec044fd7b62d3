import { moveUnit, type Units } from "./word-breakers.js";

/*
 * Leetspeak that writes one letter with several symbols ("|<i|_|_ y()|_|" is "kill you"). The
 * one-symbol table (normalize.ts LEET) could not see them: every such sentence of 61 plainly
 * harmful ones lost every flag. Runs before the one-symbol step, which would read "|" as "i".
 */

/** Longest first where one is the start of another ("|_|" before "|_"). */
const SEQUENCES: readonly [string, string][] = [
  ["\\/\\/", "w"], ["/\\/\\", "m"], ["|_|", "u"], ["|-|", "h"], ["|\\|", "n"],
  ["|<", "k"], ["\\/", "v"], ["/\\", "a"], ["|)", "d"], ["|2", "r"], ["|3", "b"], ["|_", "l"], ["()", "o"],
];
const PIECES = SEQUENCES.map(([from, to]) => ({ cps: [...from].map((ch) => ch.codePointAt(0)!), letter: to.codePointAt(0)! }));
/** Characters the sequences are made of: a run of them is split into sequences. */
const PARTS = new Set(PIECES.flatMap((p) => p.cps));
const BAR = 124, BACKSLASH = 92, OPEN = 40, CLOSE = 41, SLASH = 47, SPACE = 32;

/** Whether the code point may start a sequence's run (so that text without any skips the step). */
export function mayStartMultiCharLeet(point: number): boolean {
  return point === BAR || point === BACKSLASH || point === OPEN;
}

/**
 * Rewrites each run of sequence characters that splits wholly or in part into sequences, where
 * the run touches a letter or is two sequences or more with nothing left over ("/\|\||)" is
 * "and"). "()" ending a word after letters stays, as a call in code does ("print()"), and so do
 * escaped slashes inside a word (escapedSlashes). Compacts in
 * place; a rewritten letter spans the input its symbols came from.
 */
export function undoMultiCharLeet(u: Units, isLetter: (point: number) => boolean): void {
  const c = u.cps;
  const n = u.length;
  let w = 0;
  let i = 0;
  while (i < n) {
    if (!PARTS.has(c[i]!)) {
      if (w !== i) moveUnit(u, i, w);
      w++;
      i++;
      continue;
    }
    let end = i;
    while (end < n && PARTS.has(c[end]!)) end++;
    const cut = segment(c, i, end);
    const touches = (w > 0 && isLetter(c[w - 1]!)) || (end < n && isLetter(c[end]!));
    const whole = cut.covered === end - i && cut.pieces.length >= 2;
    const call = cut.pieces.length === 1 && cut.pieces[0]!.letter === 111 && end - i === 2 && w > 0 && isLetter(c[w - 1]!) && !(end < n && isLetter(c[end]!));
    const slashes = escapedSlashes(c, i, end) && ((w > 0 && c[w - 1] !== SPACE) || !otherLeetInWord(c, n, end));
    // "|2" and "|3" end in a digit: in tables ("|turkic|3%|") they are a bar and a number.
    const number = !whole && cut.pieces.some((p) => isDigit(c[p.to - 1]!) && !(p.to < n && isLetter(c[p.to]!)));
    if (cut.pieces.length === 0 || !(touches || whole) || call || slashes || number) {
      for (; i < end; i++, w++) if (w !== i) moveUnit(u, i, w);
      continue;
    }
    for (const piece of cut.pieces) {
      // Symbols before the piece stay as they are.
      for (; i < piece.from; i++, w++) if (w !== i) moveUnit(u, i, w);
      const to = u.to[piece.to - 1]!;
      moveUnit(u, piece.from, w);
      c[w] = piece.letter;
      u.to[w] = to;
      w++;
      i = piece.to;
    }
    for (; i < end; i++, w++) if (w !== i) moveUnit(u, i, w);
  }
  u.length = w;
}

/**
 * Whether [from, to) is only JSON-escaped slashes ("\/"): slashes ("blood\/self harm",
 * "https:\/\/", "\/r\/politics"), not "v" and "w", except at a word start in a word holding
 * other multi-character leetspeak after them ("\/\/i|_|_").
 */
function escapedSlashes(c: Int32Array, from: number, to: number): boolean {
  if ((to - from) % 2 !== 0) return false;
  for (let k = from; k < to; k += 2) if (c[k] !== BACKSLASH || c[k + 1] !== SLASH) return false;
  return true;
}

/** Whether the word from `from` on holds another sequence's mark ("|", "/" before a backslash, "()"). */
function otherLeetInWord(c: Int32Array, n: number, from: number): boolean {
  for (let k = from; k < n && c[k] !== SPACE; k++) {
    if (c[k] === BAR || (c[k] === SLASH && c[k + 1] === BACKSLASH) || (c[k] === OPEN && c[k + 1] === CLOSE)) return true;
  }
  return false;
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57;

type Piece = { from: number; to: number; letter: number };

/**
 * The split of [from, to) into sequences covering the most characters ("|_|_" is "|_" "|_",
 * "ll", not "|_|" and a "_" left over): a small dynamic programme over the run.
 */
function segment(c: Int32Array, from: number, to: number): { covered: number; pieces: Piece[] } {
  const length = to - from;
  // best[k]: most characters covered in [from + k, to); choice[k]: the piece taken at k, or -1.
  const best = new Int32Array(length + 1);
  const choice = new Int32Array(length + 1).fill(-1);
  for (let k = length - 1; k >= 0; k--) {
    best[k] = best[k + 1]!;
    for (let p = 0; p < PIECES.length; p++) {
      const seq = PIECES[p]!.cps;
      if (k + seq.length > length || !matches(c, from + k, seq)) continue;
      const covered = seq.length + best[k + seq.length]!;
      if (covered > best[k]!) {
        best[k] = covered;
        choice[k] = p;
      }
    }
  }
  const pieces: Piece[] = [];
  for (let k = 0; k < length; ) {
    const p = choice[k]!;
    if (p < 0) {
      k++;
      continue;
    }
    const len = PIECES[p]!.cps.length;
    pieces.push({ from: from + k, to: from + k + len, letter: PIECES[p]!.letter });
    k += len;
  }
  return { covered: best[0]!, pieces };
}

function matches(c: Int32Array, at: number, seq: readonly number[]): boolean {
  for (let k = 0; k < seq.length; k++) if (c[at + k] !== seq[k]) return false;
  return true;
}
