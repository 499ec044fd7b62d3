import { normalizeForMatching, normalizeText } from "../classifiers/normalize/normalize.js";

/** One whole-word occurrence of a list term; offsets are the input's code points, end exclusive. */
export interface TermHit {
  /** Index of the term in the list given to buildTermMatcher. */
  term: number;
  start: number;
  end: number;
  /** The input as written over the span (obfuscation and all). */
  text: string;
}

export interface TermMatcher {
  /** Every whole-word occurrence of every term in `input`, in order of their end. */
  find(input: string): TermHit[];
}

/**
 * An Aho-Corasick automaton over the normalised forms of `terms`, built once per policy version,
 * so matching costs one pass over the normalised text whatever the list's size. Terms and text go
 * through the same normalisation as the classifier (leetspeak, spacing, look-alikes, zero-width),
 * so "h4te" or "k i l l" in a text matches the term "hate" or "kill".
 */
/** `dense: false` forces the sparse automaton (tests hold both forms to the same answers). */
export function buildTermMatcher(terms: readonly string[], options: { dense?: boolean } = {}): TermMatcher {
  // Trie over UTF-16 units of the normalised terms. goto: per node, unit -> child.
  const goto: Map<number, number>[] = [new Map()];
  const depth: number[] = [0];
  /** Terms ending at each node (several list entries can normalise alike). */
  const ends: number[][] = [[]];
  terms.forEach((raw, index) => {
    const term = normalizeForMatching(raw);
    let node = 0;
    for (let i = 0; i < term.length; i++) {
      const unit = term.charCodeAt(i);
      let child = goto[node]!.get(unit);
      if (child === undefined) {
        child = goto.length;
        goto.push(new Map());
        depth.push(depth[node]! + 1);
        ends.push([]);
        goto[node]!.set(unit, child);
      }
      node = child;
    }
    if (term.length > 0) ends[node]!.push(index);
  });

  // Failure links breadth first; `report` links jump to the nearest suffix node that ends a term.
  const fail = new Int32Array(goto.length);
  const report = new Int32Array(goto.length).fill(-1);
  const queue: number[] = [];
  for (const child of goto[0]!.values()) queue.push(child);
  for (let q = 0; q < queue.length; q++) {
    const node = queue[q]!;
    for (const [unit, child] of goto[node]!) {
      let f = fail[node]!;
      while (f !== 0 && !goto[f]!.has(unit)) f = fail[f]!;
      const next = goto[f]!.get(unit);
      fail[child] = next !== undefined && next !== child ? next : 0;
      report[child] = ends[fail[child]!]!.length > 0 ? fail[child]! : report[fail[child]!]!;
      queue.push(child);
    }
  }

  const hasOutput = new Uint8Array(goto.length);
  for (let node = 1; node < goto.length; node++) hasOutput[node] = ends[node]!.length > 0 || report[node]! > 0 ? 1 : 0;
  const step = (options.dense !== false ? denseSteps(goto, fail) : undefined) ?? sparseStep(goto, fail);

  return {
    find(input) {
      if (terms.length === 0) return [];
      const normalized = normalizeText(input);
      const text = normalized.text;
      const hits: TermHit[] = [];
      // Code-point offsets are UTF-16 offsets unless the input has astral characters.
      const astral = /[\ud800-\udfff]/.test(input);
      let codePoints: string[] | undefined;
      let node = 0;
      for (let i = 0; i < text.length; i++) {
        node = step(node, text.charCodeAt(i));
        if (hasOutput[node] === 0) continue;
        for (let out = ends[node]!.length > 0 ? node : report[node]!; out > 0; out = report[out]!) {
          const startUnit = i + 1 - depth[out]!;
          if (isWordUnit(text, startUnit - 1) || isWordUnit(text, i + 1)) continue;
          const start = normalized.start[startUnit]!;
          const end = normalized.end[i]!;
          let spanText: string;
          if (!astral) spanText = input.slice(start, end);
          else spanText = (codePoints ??= Array.from(input)).slice(start, end).join("");
          for (const term of ends[out]!) hits.push({ term, start, end, text: spanText });
        }
      }
      return hits;
    },
  };
}

/** Entries of a dense transition table past which the sparse automaton is used (16 MiB of Int32). */
const DENSE_LIMIT = 4 << 20;

/**
 * The automaton as a full transition table over the units the terms use (every other unit is one
 * class that leads back to the root): one array read per unit of text instead of hash look-ups and
 * failure chasing. Undefined when the table would pass DENSE_LIMIT (huge or very varied lists).
 */
function denseSteps(goto: Map<number, number>[], fail: Int32Array): ((node: number, unit: number) => number) | undefined {
  const classOf = new Map<number, number>();
  for (const edges of goto) for (const unit of edges.keys()) if (!classOf.has(unit)) classOf.set(unit, classOf.size + 1);
  const width = classOf.size + 1;
  if (goto.length * width > DENSE_LIMIT) return undefined;
  const asciiClass = Int32Array.from({ length: 128 }, (_, unit) => classOf.get(unit) ?? 0);
  const table = new Int32Array(goto.length * width);
  // Breadth first, so a node's failure target has its row filled before the node.
  const order = [0];
  for (let q = 0; q < order.length; q++) for (const child of goto[order[q]!]!.values()) order.push(child);
  for (const node of order) {
    const row = node * width;
    if (node !== 0) table.copyWithin(row, fail[node]! * width, fail[node]! * width + width);
    else table.fill(0, 0, width);
    for (const [unit, child] of goto[node]!) table[row + classOf.get(unit)!] = child;
  }
  return (node, unit) => table[node * width + (unit < 128 ? asciiClass[unit]! : (classOf.get(unit) ?? 0))]!;
}

/** The automaton's step with its goto maps and failure links, for lists too large for a table. */
function sparseStep(goto: Map<number, number>[], fail: Int32Array): (node: number, unit: number) => number {
  return (node, unit) => {
    let next = goto[node]!.get(unit);
    while (next === undefined && node !== 0) {
      node = fail[node]!;
      next = goto[node]!.get(unit);
    }
    return next ?? 0;
  };
}

const WORD = /[\p{L}\p{N}]/u;

/** Whether the unit at `k` is part of a word (out of range is not), so a term matches whole words only. */
function isWordUnit(text: string, k: number): boolean {
  if (k < 0 || k >= text.length) return false;
  const code = text.charCodeAt(k);
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90);
  return WORD.test(text[k]!) || (code >= 0xd800 && code <= 0xdfff && WORD.test(String.fromCodePoint(text.codePointAt(k >= 1 && code >= 0xdc00 ? k - 1 : k)!)));
}
