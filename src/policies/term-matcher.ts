import { CHECKPOINT_EVERY, TERMS_PER_CHECKPOINT, runCooperatively, runToEnd, type Steps } from "../base/cooperative.js";
import { mayUseInvisibleSpaces, normalizeForMatching, normalizeText, type NormalizedText } from "../classifiers/normalize/normalize.js";
import { doubledRuns, type LetterRuns } from "./doubled-letters.js";
import { inputSpans, type InputSpans } from "./span-letter-runs.js";

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
  /**
   * Every whole-word occurrence of every term in `input`, in order of their end; with `groups`,
   * per group only the longest of its terms ending at one place, and at most the group's cap.
   */
  find(input: string): TermHit[];
}

/**
 * Terms that answer for one another (a policy's block terms of one category, its allow terms):
 * a caller needs one hit of the group where its terms end at one place, not one per term, and
 * perhaps not every place. Without groups, a list of 10,000 copies of "the" made 25 million hits
 * of a 10,000-character text of "the the ...", and ran the service out of memory.
 */
export interface TermGroups {
  /** The group of each term, by index, numbered from 0. */
  of: ArrayLike<number>;
  /** Per group, the most hits one text reports (0: no limit). */
  caps: ArrayLike<number>;
}

/**
 * An Aho-Corasick automaton over the normalised forms of `terms`, built once per policy version,
 * so matching costs one pass over the normalised text whatever the list's size. Terms and text go
 * through the same normalisation as the classifier (leetspeak, spacing, look-alikes, zero-width),
 * so "h4te" or "k i l l" in a text matches the term "hate" or "kill".
 */
/** `dense: false` forces the sparse automaton (tests hold both forms to the same answers). */
export function buildTermMatcher(terms: readonly string[], options: MatcherOptions = {}): TermMatcher {
  return runToEnd(termMatcherSteps(terms, options));
}

/** The same matcher, built giving the event loop a turn every few milliseconds (cooperative.ts). */
export function buildTermMatcherCooperatively(terms: readonly string[], options: Omit<MatcherOptions, "dense"> = {}): Promise<TermMatcher> {
  return runCooperatively(termMatcherSteps(terms, options));
}

interface MatcherOptions {
  dense?: boolean;
  groups?: TermGroups;
}

function* termMatcherSteps(terms: readonly string[], options: MatcherOptions): Steps<TermMatcher> {
  const { groups } = options;
  // Each pattern is a normalised form of the term at the same index of patternTerm.
  const normalizedTerms: string[] = [];
  const patternTerm: number[] = [];
  // Each term's doubled letters (doubled-letters.ts): a hit needs as many in the text.
  const doubled = new Uint8Array(terms.length);
  // Terms of three letters or fewer as written: those a doubled letter makes another word.
  const shortTerm = new Uint8Array(terms.length);
  for (let term = 0; term < terms.length; term++) {
    const raw = terms[term]!;
    doubled[term] = Math.min(255, doubledRuns(raw));
    shortTerm[term] = (raw.match(/[\p{L}\p{N}]/gu)?.length ?? 0) <= SHORT_TERM ? 1 : 0;
    for (const form of caseForms(raw)) {
      normalizedTerms.push(form);
      patternTerm.push(term);
    }
    if (term % TERMS_PER_CHECKPOINT === 0) yield;
  }
  const trie = new Trie(normalizedTerms.reduce((n, t) => n + t.length, 1));
  /**
   * Terms ending at each node (several list entries can normalise alike), and a flag per node for
   * the hot loops: an array indexed by node ids up to a million would be sparse, in dictionary mode.
   */
  const ends = new Map<number, number[]>();
  for (let index = 0; index < normalizedTerms.length; index++) {
    if (index % CHECKPOINT_EVERY === 0) yield;
    const term = normalizedTerms[index]!;
    let node = 0;
    for (let i = 0; i < term.length; i++) {
      const unit = term.charCodeAt(i);
      const next = trie.child(node, unit);
      node = next !== -1 ? next : trie.addChild(node, unit);
    }
    if (term.length === 0) continue;
    const owner = patternTerm[index]!;
    const list = ends.get(node);
    if (!list) ends.set(node, [owner]);
    // A term of a group that one here already stands for (the same checks of doubled letters) adds nothing.
    else if (!(groups && list.some((t) => groups.of[t] === groups.of[owner] && doubled[t] === doubled[owner] && shortTerm[t] === shortTerm[owner]))) list.push(owner);
  }
  const nodes = trie.size;
  const endsHere = new Uint8Array(nodes);
  for (const node of ends.keys()) endsHere[node] = 1;

  // Failure links breadth first; `report` links jump to the nearest suffix node that ends a term.
  const links: FailureLinks = { fail: new Int32Array(nodes), report: new Int32Array(nodes).fill(-1), order: new Int32Array(nodes), queued: 1 };
  for (let from = 0; from < links.queued; from += LINK_SLICE) {
    linkFailures(trie, endsHere, links, from, from + LINK_SLICE);
    yield;
  }
  const { fail, report, order } = links;

  const hasOutput = new Uint8Array(nodes);
  for (let node = 1; node < nodes; node++) hasOutput[node] = endsHere[node] === 1 || report[node]! > 0 ? 1 : 0;
  const step = (options.dense !== false ? denseSteps(trie, fail, order) : undefined) ?? sparseStep(trie, fail);
  // Nodes whose every term needs the doubled-letter check, and past each node the next on its report
  // chain that has a term needing none: once a text's checks are spent (FAILED_CHECKS_PER_UNIT), the
  // chain jumps there instead of walking hundreds of nested terms at every unit.
  const checkedOnly = new Uint8Array(nodes);
  for (const [node, owners] of ends) checkedOnly[node] = owners.every((term) => doubled[term] !== 0 || shortTerm[term] !== 0) ? 1 : 0;
  const uncheckedReport = new Int32Array(nodes).fill(-1);
  for (const node of order) {
    const next = report[node]!;
    if (next > 0) uncheckedReport[node] = checkedOnly[next] === 1 ? uncheckedReport[next]! : next;
  }

  let groupCount = 0;
  if (groups) for (let term = 0; term < terms.length; term++) groupCount = Math.max(groupCount, groups.of[term]! + 1);

  /** The hits in `input` as `normalized` reads it (offsets and span texts are `spans`', the input's). */
  const matchIn = (normalized: NormalizedText, spans: InputSpans): TermHit[] => {
    const text = normalized.text;
    const hits: TermHit[] = [];
    // Per group: the last place it had a hit (+1, so 0 is none), and its hits so far.
    const lastEnd = groups ? new Int32Array(groupCount) : undefined;
    const found = groups ? new Int32Array(groupCount) : undefined;
    let checksLeft = FAILED_CHECKS_PER_UNIT * text.length + FAILED_CHECKS_BASE;
    /** Whether a hit of `term` ending at `i` would be reported: its group has none there and is under its cap. */
    const open = (term: number, i: number): boolean => {
      if (!groups) return true;
      const group = groups.of[term]!;
      const cap = groups.caps[group]!;
      return lastEnd![group] !== i + 1 && !(cap > 0 && found![group]! >= cap);
    };
    const keep = (hit: TermHit, i: number) => {
      hits.push(hit);
      if (!groups) return;
      const group = groups.of[hit.term]!;
      lastEnd![group] = i + 1;
      found![group]!++;
    };
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      node = step(node, text.charCodeAt(i));
      if (hasOutput[node] === 0) continue;
      for (let out = endsHere[node] === 1 ? node : report[node]!; out > 0; out = checksLeft > 0 ? report[out]! : uncheckedReport[out]!) {
        if (checksLeft <= 0 && checkedOnly[out] === 1) continue;
        const owners = ends.get(out)!;
        // The report links go from the longest term ending here to the shortest: a group's first is its longest.
        if (groups && !owners.some((term) => open(term, i))) continue;
        const startUnit = i + 1 - trie.depth[out]!;
        if (joinsWord(text, startUnit - 1) || joinsWord(text, i)) continue;
        const start = normalized.start[startUnit]!;
        const end = normalized.end[i]!;
        // The span's repeated letters against the term's (doubled-letters.ts letterRuns): at
        // least the term's doubles, and for a short term no other pair ("god" is not "good").
        // A candidate that fails is not kept, so no cap bounds how many there are: each costs
        // O(1) here (span-letter-runs.ts), its text taken only for a hit.
        let spanRuns: LetterRuns | undefined;
        let spanText: string | undefined;
        for (const term of owners) {
          if (!open(term, i)) continue;
          // Counted only for a term that has doubles or is short: most hits need no count.
          if (doubled[term] !== 0 || shortTerm[term] !== 0) {
            if (checksLeft <= 0) continue;
            spanRuns ??= spans.runsIn(start, end);
            if (spanRuns.runs < doubled[term]! || (shortTerm[term] === 1 && spanRuns.pairs > doubled[term]!)) {
              checksLeft--;
              continue;
            }
          }
          keep({ term, start, end, text: (spanText ??= spans.text(start, end)) }, i);
        }
      }
    }
    return hits;
  };

  return {
    find(input) {
      if (terms.length === 0) return [];
      // One index of the input's spans for every reading: they all report the input's offsets.
      const spans = inputSpans(input);
      let hits = matchIn(normalizeText(input), spans);
      // Zero-width characters between words may stand for spaces ("kill\u200byou"): read so too, as the model reads it.
      if (mayUseInvisibleSpaces(input)) hits = mergeHits(hits, matchIn(normalizeText(input, { invisibleAsSpace: true }), spans));
      // The term is matched in its usual cases (caseForms); a text in mixed case ("БлЯдЬ",
      // "μΑΛΑΚΑΣ") is read again in small letters, which the term's small form matches. Only a
      // text with a capital that reads otherwise than its small letter needs it (a second pass made
      // a 10,000-character text in Cyrillic capitals 3 times slower to match).
      if (!hasCapitalReadApart(input)) return hits;
      const lower = inSmallLetters(input);
      return lower === input ? hits : mergeHits(hits, matchIn(normalizeText(lower), spans));
    },
  };
}

/**
 * Per BMP code point: 0 not asked yet, 1 a capital that normalisation reads otherwise than its
 * small letter, 2 anything else (filled as met, so a text costs one array read per unit).
 */
const READ_APART = new Uint8Array(0x10000);

/**
 * Whether `input` holds a capital that normalisation reads otherwise than its small letter: the
 * Cyrillic "Д" stays "д" where "д" reads "d". The capital sigma always counts: in small letters a
 * word-final one is "ς", which reads "c". ASCII capitals fold alike in every case; astral
 * capitals (mathematical letters) fold to ASCII.
 */
function hasCapitalReadApart(input: string): boolean {
  for (let i = 0; i < input.length; i++) {
    const code = input.charCodeAt(i);
    if (code < 0x80) continue;
    let known = READ_APART[code]!;
    if (known === 0) {
      const ch = String.fromCharCode(code);
      known = /\p{Lu}/u.test(ch) && (code === 0x03a3 || normalizeForMatching(ch) !== normalizeForMatching(ch.toLowerCase())) ? 1 : 2;
      READ_APART[code] = known;
    }
    if (known === 1) return true;
  }
  return false;
}

/**
 * `input` in small letters, as long as it was (offsets stay the input's). Whole, where that keeps
 * the length: a final capital sigma is then "ς", as the term writes it; else letter by letter
 * (a dotted "İ" lower-cases to two units).
 */
function inSmallLetters(input: string): string {
  const whole = input.toLowerCase();
  if (whole.length === input.length) return whole;
  return input.replace(/\p{Lu}/gu, (capital) => {
    const small = capital.toLowerCase();
    return small.length === capital.length ? small : capital;
  });
}

/** The hits of two readings of one text, each once, in order of their end. */
function mergeHits(first: TermHit[], second: TermHit[]): TermHit[] {
  const seen = new Set(first.map((h) => `${h.term} ${h.start} ${h.end}`));
  const added = second.filter((h) => !seen.has(`${h.term} ${h.start} ${h.end}`));
  return added.length === 0 ? first : [...first, ...added].sort((a, b) => a.end - b.end || a.start - b.start);
}

/**
 * The longest term (letters and digits as written) that a doubled letter must not match: "god" and "good", "fed"
 * and "feed", "pop" and "poop" are other words, while "kiill" is still "kill" and "haate" "hate"
 * (a letter stretched by one is the cheapest evasion there is).
 */
const SHORT_TERM = 3;

/**
 * Candidates that may fail the doubled-letter check in one reading of a text: past them, a term
 * that needs the check matches no more there. Even counted in O(1), a failed candidate is never
 * kept, so no hit cap bounds them: 1,196 nested terms of "㍿" (each four letters) against "㍿㍿…"
 * failed 12 million candidates per 10,000 characters (5.6 s). An honest list fails at most about
 * one per word ("as" for "ass"), far under two per unit of normalised text.
 */
const FAILED_CHECKS_PER_UNIT = 2;
const FAILED_CHECKS_BASE = 1024;

/**
 * A term's normalised forms as written, in capitals and with capital initials. Look-alike folding
 * reads some capitals as another letter than their small forms (Cyrillic "Д" stays "д" while "д"
 * reads "d"; Greek "Μ" reads "m", "μ" stays), so "дурак" did not match "Дурак" or "ДУРАК". The
 * text is normalised once, as the classifier does; the term is matched in each of its cases.
 * Plain ASCII folds alike in every case: one form.
 */
export function caseForms(raw: string): string[] {
  if (!/[^\u0000-\u007f]/.test(raw)) return [normalizeForMatching(raw)];
  const lower = raw.toLowerCase();
  const initials = lower.replace(/(^|\s)(\p{Ll})/gu, (_, space: string, letter: string) => space + letter.toUpperCase());
  const sentence = lower.replace(/^\p{Ll}/u, (letter) => letter.toUpperCase());
  // A caseless script (CJK, Arabic) writes every form alike: normalised once, not five times.
  return [...new Set([...new Set([raw, lower, raw.toUpperCase(), initials, sentence])].map(normalizeForMatching))];
}

/** The breadth-first pass that sets failure and report links, resumable in slices of nodes. */
interface FailureLinks {
  fail: Int32Array;
  report: Int32Array;
  /** Nodes breadth first, filled as the pass goes; `queued` of them so far. */
  order: Int32Array;
  queued: number;
}

/** Nodes linked between two checkpoints: a few milliseconds of work. */
const LINK_SLICE = CHECKPOINT_EVERY * 64;

/**
 * Links the queued nodes from `from` up to `to` (or the end of the queue), queueing their
 * children. A plain function, outside the generator, so that its loop is optimised as one.
 */
function linkFailures(trie: Trie, endsHere: Uint8Array, links: FailureLinks, from: number, to: number): void {
  const { fail, report, order } = links;
  let queued = links.queued;
  for (let q = from; q < queued && q < to; q++) {
    const node = order[q]!;
    for (let child = trie.firstChild[node]!; child !== -1; child = trie.nextSibling[child]!) {
      order[queued++] = child;
      if (node === 0) continue;
      const unit = trie.unit[child]!;
      let f = fail[node]!;
      let next = trie.child(f, unit);
      while (next === -1 && f !== 0) {
        f = fail[f]!;
        next = trie.child(f, unit);
      }
      fail[child] = next !== -1 && next !== child ? next : 0;
      report[child] = endsHere[fail[child]!] === 1 ? fail[child]! : report[fail[child]!]!;
    }
  }
  links.queued = queued;
}

/**
 * The trie over UTF-16 units of the normalised terms, in flat arrays: a node is an index, its
 * children a linked list (firstChild, nextSibling), and the root's children also a table by unit.
 * A full list (10,000 terms of 100 characters, about 770,000 nodes) took 0.5-1.1 s to build as one
 * Map per node, on the event loop of a TestPolicy call.
 */
class Trie {
  readonly unit: Uint16Array;
  readonly depth: Int32Array;
  readonly firstChild: Int32Array;
  readonly nextSibling: Int32Array;
  private readonly rootChild = new Int32Array(65536).fill(-1);
  size = 1;

  /** `capacity`: the most nodes there can be (1 + the terms' total length). */
  constructor(capacity: number) {
    this.unit = new Uint16Array(capacity);
    this.depth = new Int32Array(capacity);
    this.firstChild = new Int32Array(capacity).fill(-1);
    this.nextSibling = new Int32Array(capacity).fill(-1);
  }

  /** The child of `node` by `unit`, or -1 (a number either way keeps the hot loops monomorphic). */
  child(node: number, unit: number): number {
    if (node === 0) return this.rootChild[unit]!;
    for (let c = this.firstChild[node]!; c !== -1; c = this.nextSibling[c]!) if (this.unit[c] === unit) return c;
    return -1;
  }

  addChild(node: number, unit: number): number {
    const c = this.size++;
    this.unit[c] = unit;
    this.depth[c] = this.depth[node]! + 1;
    this.nextSibling[c] = this.firstChild[node]!;
    this.firstChild[node] = c;
    if (node === 0) this.rootChild[unit] = c;
    return c;
  }
}

/** Entries of a dense transition table past which the sparse automaton is used (16 MiB of Int32). */
const DENSE_LIMIT = 4 << 20;

/**
 * The automaton as a full transition table over the units the terms use (every other unit is one
 * class that leads back to the root): one array read per unit of text instead of child look-ups and
 * failure chasing. Undefined when the table would pass DENSE_LIMIT (huge or very varied lists).
 * `order`: the nodes breadth first, so a node's failure target has its row filled before the node.
 */
function denseSteps(trie: Trie, fail: Int32Array, order: Int32Array): ((node: number, unit: number) => number) | undefined {
  const nodes = trie.size;
  // Count the distinct units first, in a flat table: a huge list is refused before any Map is built.
  const used = new Uint8Array(65536);
  let distinct = 0;
  for (let node = 1; node < nodes; node++) {
    if (used[trie.unit[node]!] === 0) {
      used[trie.unit[node]!] = 1;
      distinct++;
    }
  }
  const width = distinct + 1;
  if (nodes * width > DENSE_LIMIT) return undefined;
  const classOf = new Map<number, number>();
  for (let node = 1; node < nodes; node++) if (!classOf.has(trie.unit[node]!)) classOf.set(trie.unit[node]!, classOf.size + 1);
  const asciiClass = Int32Array.from({ length: 128 }, (_, unit) => classOf.get(unit) ?? 0);
  const table = new Int32Array(nodes * width);
  for (const node of order) {
    const row = node * width;
    if (node !== 0) table.copyWithin(row, fail[node]! * width, fail[node]! * width + width);
    for (let child = trie.firstChild[node]!; child !== -1; child = trie.nextSibling[child]!) table[row + classOf.get(trie.unit[child]!)!] = child;
  }
  return (node, unit) => table[node * width + (unit < 128 ? asciiClass[unit]! : (classOf.get(unit) ?? 0))]!;
}

/** The automaton's step with its child lists and failure links, for lists too large for a table. */
function sparseStep(trie: Trie, fail: Int32Array): (node: number, unit: number) => number {
  return (node, unit) => {
    let next = trie.child(node, unit);
    while (next === -1 && node !== 0) {
      node = fail[node]!;
      next = trie.child(node, unit);
    }
    return next === -1 ? 0 : next;
  };
}

const WORD = /[\p{L}\p{M}\p{N}]/u;
const MARK = /\p{M}/u;
/**
 * Scripts written without spaces between words: in them every character boundary may be a word's,
 * so a term matches inside a run ("我要杀了你" holds "杀了你").
 */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Tibetan}]/u;

/** Whether the units at `k` and `k + 1` belong to one word: both word units, neither in a script written without spaces. */
function joinsWord(text: string, k: number): boolean {
  if (!isWordUnit(text, k) || !isWordUnit(text, k + 1)) return false;
  // A mark belongs to the character before it, in any script: a term ending before a vowel sign
  // (Devanagari "साला" in "सालाना") or a kana voicing mark ("ハ" in "バ") ends inside a word.
  if (MARK.test(text[k + 1]!)) return true;
  const a = text.charCodeAt(k), b = text.charCodeAt(k + 1);
  if (a < 128 && b < 128) return true;
  return !(isUnspaced(text, k) || isUnspaced(text, k + 1));
}

function isUnspaced(text: string, k: number): boolean {
  const code = text.charCodeAt(k);
  if (code < 0x0e00) return false;
  return UNSPACED.test(String.fromCodePoint(text.codePointAt(code >= 0xdc00 && code <= 0xdfff && k >= 1 ? k - 1 : k)!));
}

/** Whether the unit at `k` is part of a word (out of range is not), so a term matches whole words only. */
function isWordUnit(text: string, k: number): boolean {
  if (k < 0 || k >= text.length) return false;
  const code = text.charCodeAt(k);
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90);
  return WORD.test(text[k]!) || (code >= 0xd800 && code <= 0xdfff && WORD.test(String.fromCodePoint(text.codePointAt(k >= 1 && code >= 0xdc00 ? k - 1 : k)!)));
}
