import { codePointOffsets, holdsSurrogate } from "../base/code-points.js";
import { letterCodes, letterRuns, type LetterRuns } from "./doubled-letters.js";

/**
 * letterRuns (doubled-letters.ts) of any span of one input, each in constant time. The matcher
 * checks a span's doubled letters for every candidate hit, and a candidate that fails is never
 * kept, so no hit cap bounds them: counted afresh over each span, a policy of doubled-letter terms
 * in a script written without spaces ("甲甲乙" against "甲乙甲乙…", or terms of "㍿", which reads
 * as four letters) cost 5 s to minutes per 10,000-character text, on the event loop.
 *
 * The input is folded once, cluster by cluster (a code point with the marks and conjoining vowels
 * and finals that compose with it), exactly as letterRuns folds a span; a span's runs are then
 * prefix counts of the input's maximal runs, with the runs its ends cut counted apart.
 *
 * Where it can read otherwise than letterRuns of the span's text:
 * - a capital sigma is folded alone, as "σ", where lower-casing a whole span reads a word-final
 *   one as "ς" (which reads "c");
 * - a cluster is cut after MAX_CLUSTER code points (a letter with dozens of marks), so a mark past
 *   that does not compose with its letter.
 */
export interface SpanLetterRuns {
  /** letterRuns of the input's code points [start, end). */
  runsIn(start: number, end: number): LetterRuns;
}

/** A text's spans by code-point offsets: their text as written and their letterRuns. */
export interface InputSpans {
  text(start: number, end: number): string;
  runsIn(start: number, end: number): LetterRuns;
}

/** Spans of `input`, each folded in constant time (the index is built at the first span asked). */
export function inputSpans(input: string): InputSpans {
  // Code-point offsets are UTF-16 offsets unless the input has astral characters.
  const astral = holdsSurrogate(input);
  // Plain ASCII is folded in a few steps per letter: an ordinary item's few checked hits cost less
  // counted over their spans than indexing it (bench:policy went from 50 to 97 µs per item); the
  // matcher's FAILED_CHECKS_PER_UNIT bounds how many spans are counted.
  const ascii = !/[^\u0000-\u007f]/.test(input);
  let offsets: Int32Array | undefined;
  let letters: SpanLetterRuns | undefined;
  const unitAt = (): Int32Array => (offsets ??= codePointOffsets(input));
  return {
    text: (start, end) => (astral ? input.slice(unitAt()[start], unitAt()[end]) : input.slice(start, end)),
    runsIn: (start, end) => (ascii ? letterRuns(input.slice(start, end)) : (letters ??= indexLetterRuns(input, unitAt())).runsIn(start, end)),
  };
}

/** Code points of one cluster at most: folding a partly covered cluster costs at most this. */
const MAX_CLUSTER = 32;

export function indexLetterRuns(input: string, unitAt: Int32Array): SpanLetterRuns {
  const points = unitAt.length - 1;
  // Per code point: the start and the end of its cluster.
  const clusterStart = new Int32Array(points + 1);
  const clusterEnd = new Int32Array(points + 1);
  // Per cluster start (and the end): how many folded letters come before it.
  const lettersBefore = new Int32Array(points + 1);
  const codes: number[] = [];
  const single = new Map<number, readonly number[]>();
  for (let p = 0; p < points; ) {
    let q = p + 1;
    while (q < points && q - p < MAX_CLUSTER && continuesCluster(input.codePointAt(unitAt[q]!)!)) q++;
    lettersBefore[p] = codes.length;
    const first = input.charCodeAt(unitAt[p]!);
    if (q === p + 1 && first < 128) {
      const code = ASCII_LETTER_CODE[first]!;
      if (code >= 0) codes.push(code);
    } else {
      const text = input.slice(unitAt[p]!, unitAt[q]!);
      let folded = q === p + 1 ? single.get(first) : undefined;
      if (!folded) {
        folded = letterCodes(text);
        if (q === p + 1 && text.length === 1) single.set(first, folded);
      }
      for (const code of folded) codes.push(code);
    }
    for (let k = p; k < q; k++) {
      clusterStart[k] = p;
      clusterEnd[k] = q;
    }
    p = q;
  }
  clusterStart[points] = clusterEnd[points] = points;
  lettersBefore[points] = codes.length;
  const runs = maximalRuns(codes);

  const folded = (start: number, end: number): RunSummary => summarize(letterCodes(input.slice(unitAt[start]!, unitAt[end]!)));
  return {
    runsIn(start, end) {
      if (start >= end) return { runs: 0, pairs: 0 };
      const cutAtStart = clusterStart[start] !== start;
      const cutAtEnd = clusterStart[end] !== end;
      if (!cutAtStart && !cutAtEnd) return runs.counts(lettersBefore[start]!, lettersBefore[end]!);
      // A span that starts or ends inside a cluster (a vowel jamo of its own): the cut clusters folded now.
      if (clusterStart[start] === clusterStart[end]) return totals(folded(start, end));
      const inner = runs.between(lettersBefore[cutAtStart ? clusterEnd[start]! : start]!, lettersBefore[cutAtEnd ? clusterStart[end]! : end]!);
      const head = cutAtStart ? join(folded(start, clusterEnd[start]!), inner) : inner;
      return totals(cutAtEnd ? join(head, folded(clusterStart[end]!, end)) : head);
    },
  };
}

/** As letterRuns reads each ASCII unit: its small letter, digit or leet symbol, or -1 (skipped). */
const ASCII_LETTER_CODE = Int32Array.from({ length: 128 }, (_, code) => {
  const folded = letterCodes(String.fromCharCode(code));
  return folded.length === 1 ? folded[0]! : -1;
});

/**
 * Per BMP code point: 0 not asked yet, 1 it composes with what comes before it (its NFKC form
 * starts with a mark, or with a Hangul vowel or final that joins a syllable), 2 not.
 */
const CONTINUES = new Uint8Array(0x10000);
const MARK = /^\p{M}/u;

function continuesCluster(point: number): boolean {
  if (point < 0x300) return false;
  if (point > 0xffff) return joinsPrevious(point);
  let known = CONTINUES[point]!;
  if (known === 0) CONTINUES[point] = known = joinsPrevious(point) ? 1 : 2;
  return known === 1;
}

function joinsPrevious(point: number): boolean {
  const ch = String.fromCodePoint(point);
  const first = ch.normalize("NFKC").codePointAt(0) ?? point;
  return MARK.test(ch) || MARK.test(String.fromCodePoint(first)) || (first >= 0x1160 && first <= 0x11ff) || (first >= 0xd7b0 && first <= 0xd7ff);
}

/** Maximal runs of equal codes, with prefix counts, so that any slice's runs cost O(1). */
interface MaximalRuns {
  between(from: number, to: number): RunSummary;
  /** between's runs and pairs alone (the matcher's path, with no summary to build). */
  counts(from: number, to: number): LetterRuns;
}

function maximalRuns(codes: readonly number[]): MaximalRuns {
  const runOf = new Int32Array(codes.length);
  const starts: number[] = [];
  for (let k = 0; k < codes.length; k++) {
    if (k === 0 || codes[k] !== codes[k - 1]) starts.push(k);
    runOf[k] = starts.length - 1;
  }
  starts.push(codes.length);
  // Per run index r: how many runs before r are 2 or more long, and exactly 2.
  const longBefore = new Int32Array(starts.length);
  const pairsBefore = new Int32Array(starts.length);
  for (let r = 0; r + 1 < starts.length; r++) {
    const length = starts[r + 1]! - starts[r]!;
    longBefore[r + 1] = longBefore[r]! + (length >= 2 ? 1 : 0);
    pairsBefore[r + 1] = pairsBefore[r]! + (length === 2 ? 1 : 0);
  }
  /** Runs and pairs of [from, to) spanning runs `first` to `last`, those two cut to the given lengths. */
  const across = (first: number, last: number, headLength: number, tailLength: number): LetterRuns => ({
    runs: longBefore[last]! - longBefore[first + 1]! + (headLength >= 2 ? 1 : 0) + (tailLength >= 2 ? 1 : 0),
    pairs: pairsBefore[last]! - pairsBefore[first + 1]! + (headLength === 2 ? 1 : 0) + (tailLength === 2 ? 1 : 0),
  });
  return {
    counts(from, to) {
      if (from >= to) return { runs: 0, pairs: 0 };
      const first = runOf[from]!, last = runOf[to - 1]!;
      if (first === last) return { runs: to - from >= 2 ? 1 : 0, pairs: to - from === 2 ? 1 : 0 };
      return across(first, last, starts[first + 1]! - from, to - starts[last]!);
    },
    between(from, to) {
      if (from >= to) return EMPTY;
      const first = runOf[from]!, last = runOf[to - 1]!;
      if (first === last) return oneRun(codes[from]!, to - from);
      const headLength = starts[first + 1]! - from;
      const tailLength = to - starts[last]!;
      // Whole runs strictly between the cut first and last ones, then those two.
      return { length: to - from, ...across(first, last, headLength, tailLength), first: codes[from]!, headLength, last: codes[to - 1]!, tailLength };
    },
  };
}

/** Runs of a sequence of folded letters, with its first and last runs, to join it to the next. */
interface RunSummary {
  length: number;
  runs: number;
  pairs: number;
  first: number;
  headLength: number;
  last: number;
  tailLength: number;
}

const EMPTY: RunSummary = { length: 0, runs: 0, pairs: 0, first: -1, headLength: 0, last: -1, tailLength: 0 };

function oneRun(code: number, length: number): RunSummary {
  return { length, runs: length >= 2 ? 1 : 0, pairs: length === 2 ? 1 : 0, first: code, headLength: length, last: code, tailLength: length };
}

function summarize(codes: readonly number[]): RunSummary {
  let summary = EMPTY;
  for (const code of codes) summary = join(summary, oneRun(code, 1));
  return summary;
}

/** The summary of `a` followed by `b`: where a's last run and b's first are one letter, one run. */
function join(a: RunSummary, b: RunSummary): RunSummary {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  if (a.last !== b.first) {
    return { length: a.length + b.length, runs: a.runs + b.runs, pairs: a.pairs + b.pairs, first: a.first, headLength: a.headLength, last: b.last, tailLength: b.tailLength };
  }
  const merged = a.tailLength + b.headLength;
  const counted = (length: number) => (length >= 2 ? 1 : 0);
  const paired = (length: number) => (length === 2 ? 1 : 0);
  return {
    length: a.length + b.length,
    runs: a.runs + b.runs - counted(a.tailLength) - counted(b.headLength) + counted(merged),
    pairs: a.pairs + b.pairs - paired(a.tailLength) - paired(b.headLength) + paired(merged),
    first: a.first,
    headLength: a.headLength === a.length ? merged : a.headLength,
    last: b.last,
    tailLength: b.tailLength === b.length ? merged : b.tailLength,
  };
}

function totals(summary: RunSummary): LetterRuns {
  return { runs: summary.runs, pairs: summary.pairs };
}
