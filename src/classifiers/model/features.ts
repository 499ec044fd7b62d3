import { NORMALIZED_IDENTITY_WORDS } from "./identity-words.js";
import { newUint32Array } from "./typed-slab.js";

/**
 * Hashed n-gram features of normalised text: word unigrams, word bigrams and character n-grams of
 * each word (with boundary marks, fastText style). Shared by training and inference, so a model
 * file only needs to record the spec to be scored the same way it was trained.
 */
export interface HashingSpec {
  /** Number of buckets; a power of two. */
  buckets: number;
  /** Character n-gram lengths, inclusive. */
  minN: number;
  maxN: number;
  /**
   * Words naming a protected group (lexicon/identity-words.ts): "drop" = they add no features (no
   * unigram, char n-grams or bigrams); "placeholder" = every such word hashes as one shared word,
   * without char n-grams, so a model knows a group is named but not which. Absent in model files
   * made before it existed, which hash every word as itself.
   */
  identityWords?: "drop" | "placeholder";
}

/** A bigram slot with no feature (a bigram that touches a dropped word); real buckets are below 2^31. */
const NO_BUCKET = 0xffffffff;

export interface Token {
  start: number;
  end: number;
}

/** Index of the first token starting at or after `x` (tokens are sorted by start). */
export function firstTokenAtOrAfter(tokens: readonly Token[], x: number): number {
  let lo = 0, hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tokens[mid]!.start < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const SEED_WORD = 0x2f6b1a3d;
const SEED_BIGRAM = 0x51ed270b;
const SEED_CHAR = 0x6c8e9cf5;
const FNV_PRIME = 0x01000193;
// Characters of very long "words" (URLs, keyboard mashing) past this add cost, not signal.
const MAX_TOKEN = 40;

function isTokenCode(code: number): boolean {
  // a-z, 0-9, apostrophe, '*' (masked swear words), '#', and any non-ASCII letter.
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 39 || code === 42 || code === 35 || code > 127;
}

/** Tokens of normalised text (offsets into `text`). */
export function tokenize(text: string, from = 0, to = text.length): Token[] {
  const tokens: Token[] = [];
  let i = from;
  while (i < to) {
    while (i < to && !isTokenCode(text.charCodeAt(i))) i++;
    const start = i;
    while (i < to && isTokenCode(text.charCodeAt(i))) i++;
    if (i > start) tokens.push({ start, end: i });
  }
  return tokens;
}

function hashRange(text: string, start: number, end: number, seed: number): number {
  let h = seed;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

function mix(a: number, b: number): number {
  let h = Math.imul(a ^ (b >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  return (h ^ (h >>> 15)) >>> 0;
}

/** Calls `emit(bucket)` for every feature of one token (unigram and its char n-grams). */
export function tokenFeatures(text: string, tok: Token, spec: HashingSpec, emit: (bucket: number) => void): void {
  // A list of its own, so `emit` may hash other text meanwhile.
  const list: BucketList = { buf: new Uint32Array(64), n: 0 };
  appendTokenFeatures(text, tok, spec, list);
  for (let i = 0; i < list.n; i++) emit(list.buf[i]!);
}

/** A growable list of buckets: the hashing loops below append to it directly, not through a callback. */
interface BucketList { buf: Uint32Array; n: number }
/** featurize's buckets of one token (and its bigram) before they are deduplicated. */
const featurizeTokenList: BucketList = { buf: new Uint32Array(256), n: 0 };

function reserve(list: BucketList, more: number): void {
  if (list.n + more <= list.buf.length) return;
  const bigger = new Uint32Array(Math.max(list.n + more, list.buf.length * 2));
  bigger.set(list.buf.subarray(0, list.n));
  list.buf = bigger;
}

/** The token's characters between the boundary marks of "<token>" (codes 1 and 2), reused per token. */
const marked = new Int32Array(MAX_TOKEN + 2);

/**
 * Appends the features of one token, in tokenFeatures order: its unigram, then its char n-grams.
 * `hash` is the token's wordHash, when the caller has it already.
 */
function appendTokenFeatures(text: string, tok: Token, spec: HashingSpec, list: BucketList, hash = wordHash(text, tok)): void {
  const mask = spec.buckets - 1;
  const end = Math.min(tok.end, tok.start + MAX_TOKEN);
  const len = end - tok.start + 2;
  // The unigram, then at most one n-gram per start and length.
  reserve(list, 1 + len * Math.max(0, spec.maxN - spec.minN + 1));
  const buf = list.buf;
  let n = list.n;
  buf[n++] = hash & mask;
  // Char n-grams over "<token>": boundary marks are folded into the hash as code 1 and 2.
  marked[0] = 1;
  for (let p = 1; p < len - 1; p++) marked[p] = text.charCodeAt(tok.start + p - 1);
  marked[len - 1] = 2;
  const { minN, maxN } = spec;
  for (let i = 0; i < len; i++) {
    let h = SEED_CHAR;
    const longest = Math.min(maxN, len - i);
    for (let k = 1; k <= longest; k++) {
      h = Math.imul(h ^ marked[i + k - 1]!, FNV_PRIME);
      if (k >= minN) buf[n++] = mix(h, k) & mask;
    }
  }
  list.n = n;
}

/** Unmasked hashes of a token as a word and as the first half of a bigram. */
function wordHash(text: string, t: Token): number {
  return hashRange(text, t.start, Math.min(t.end, t.start + MAX_TOKEN), SEED_WORD);
}
function bigramHash(text: string, t: Token): number {
  return hashRange(text, t.start, Math.min(t.end, t.start + MAX_TOKEN), SEED_BIGRAM);
}

interface Scratch { marks: Uint32Array; stamp: number; out: Uint32Array; n: number }
const scratch = new Map<number, Scratch>();

/** The dedup area for a bucket count, with a fresh stamp: a bucket is taken when marks[bucket] === stamp. */
function scratchFor(buckets: number): Scratch {
  let st = scratch.get(buckets);
  if (!st) {
    st = { marks: new Uint32Array(buckets), stamp: 0, out: new Uint32Array(4096), n: 0 };
    scratch.set(buckets, st);
  }
  st.stamp = (st.stamp + 1) >>> 0;
  if (st.stamp === 0) {
    st.marks.fill(0);
    st.stamp = 1;
  }
  st.n = 0;
  return st;
}

/**
 * The distinct feature buckets of `text[from, to)`. Features are binary (present or not) so a word
 * repeated for emphasis does not swamp the rest; models scale the sum by 1/sqrt(count).
 * Synchronous and allocation-light: a per-bucket-count scratch area is reused across calls.
 */
export function featurize(text: string, spec: HashingSpec, from = 0, to = text.length): Uint32Array {
  const st = scratchFor(spec.buckets);
  const { marks, stamp } = st;
  const list = featurizeTokenList;
  const tokens = tokenize(text, from, to);
  const mode = spec.identityWords;
  const mask = spec.buckets - 1;
  let previousIdentity = false;
  for (let t = 0; t < tokens.length; t++) {
    list.n = 0;
    const tok = tokens[t]!;
    const identity = mode !== undefined && isIdentityWord(text, tok);
    reserve(list, 2);
    if (!identity) appendTokenFeatures(text, tok, spec, list);
    else if (mode === "placeholder") list.buf[list.n++] = PLACEHOLDER_WORD & mask;
    if (t > 0 && (mode !== "drop" || (!identity && !previousIdentity))) {
      const first = previousIdentity ? PLACEHOLDER_BIGRAM : bigramHash(text, tokens[t - 1]!);
      list.buf[list.n++] = mix(first, identity ? PLACEHOLDER_WORD : wordHash(text, tok)) & mask;
    }
    previousIdentity = identity;
    if (st.out.length < st.n + list.n) {
      const bigger = new Uint32Array(Math.max(st.n + list.n, st.out.length * 2));
      bigger.set(st.out.subarray(0, st.n));
      st.out = bigger;
    }
    for (let i = 0; i < list.n; i++) {
      const b = list.buf[i]!;
      if (marks[b] === stamp) continue;
      marks[b] = stamp;
      st.out[st.n++] = b;
    }
  }
  return st.out.slice(0, st.n);
}

/** Every token's features (unigram and char n-grams, in tokenFeatures order) and bigrams, computed once per text. */
export interface TokenFeatures {
  /** Token t's buckets are feats[from[t] .. to[t]), as tokenFeatures emits them; repeated words share a slice. */
  from: Uint32Array;
  to: Uint32Array;
  feats: Uint32Array;
  /** Distinct-word id of each token (same word, same id), and the number of distinct words. */
  word: Uint32Array;
  words: number;
  /** bigram[t] = bucket of (token t - 1, token t), or NO_BUCKET; bigram[0] is unused. */
  bigram: Uint32Array;
}

export function tokenFeaturesOf(text: string, tokens: readonly Token[], spec: HashingSpec): TokenFeatures {
  const T = tokens.length;
  const mask = spec.buckets - 1;
  // One array for four results, cut into views: allocating typed arrays costs more than filling them.
  const perToken = newUint32Array(4 * T);
  const from = perToken.subarray(0, T);
  const to = perToken.subarray(T, 2 * T);
  const word = perToken.subarray(2 * T, 3 * T);
  const bigram = perToken.subarray(3 * T);
  const s = perTextScratch(T);
  const { first, asWord, asBigram, identity, slots } = s;
  const mode = spec.identityWords;
  const slotMask = slots.length - 1;
  slots.fill(0, 0, slotMask + 1);
  const list = s.feats;
  list.n = 0;
  let words = 0;
  for (let t = 0; t < T; t++) {
    const tok = tokens[t]!;
    // Features depend only on the token's characters: hash each distinct word once. Distinct words
    // are found by their hash (open addressing, slot = id + 1), confirmed on the characters.
    const hash = wordHash(text, tok);
    let slot = hash & slotMask;
    let id = -1;
    for (let at = slots[slot]!; at !== 0; slot = (slot + 1) & slotMask, at = slots[slot]!) {
      if (asWord[at - 1] === hash && sameWord(text, tokens[first[at - 1]!]!, tok)) {
        id = at - 1;
        break;
      }
    }
    if (id !== -1) {
      from[t] = from[first[id]!]!;
      to[t] = to[first[id]!]!;
    } else {
      id = words++;
      slots[slot] = id + 1;
      first[id] = t;
      asWord[id] = hash;
      identity[id] = mode !== undefined && isIdentityWord(text, tok, hash) ? 1 : 0;
      asBigram[id] = identity[id] ? PLACEHOLDER_BIGRAM : bigramHash(text, tok);
      from[t] = list.n;
      if (!identity[id]) appendTokenFeatures(text, tok, spec, list, hash);
      else if (mode === "placeholder") {
        reserve(list, 1);
        list.buf[list.n++] = PLACEHOLDER_WORD & mask;
      }
      to[t] = list.n;
    }
    word[t] = id;
    if (t > 0) {
      const touchesIdentity = identity[id] === 1 || identity[word[t - 1]!] === 1;
      bigram[t] = mode === "drop" && touchesIdentity ? NO_BUCKET : mix(asBigram[word[t - 1]!]!, identity[id] ? PLACEHOLDER_WORD : hash) & mask;
    }
  }
  const feats = newUint32Array(list.n);
  feats.set(list.buf.subarray(0, list.n));
  return { from, to, feats, word, words, bigram };
}

/**
 * Whether the token is an identity word (as normalised text spells it). Its word hash is looked up first, so the common case
 * (not an identity word) makes no string; a hash hit is confirmed on the characters.
 */
function isIdentityWord(text: string, tok: Token, hash = wordHash(text, tok)): boolean {
  return IDENTITY_HASHES.has(hash) && NORMALIZED_IDENTITY_WORDS.has(text.slice(tok.start, tok.end));
}
const IDENTITY_HASHES: ReadonlySet<number> = new Set([...NORMALIZED_IDENTITY_WORDS].map((w) => wordHash(w, { start: 0, end: w.length })));
/** The shared word every identity word hashes as in "placeholder" mode (not a word the tokenizer can make). */
const PLACEHOLDER = "<identity>";
const PLACEHOLDER_WORD = wordHash(PLACEHOLDER, { start: 0, end: PLACEHOLDER.length });
const PLACEHOLDER_BIGRAM = bigramHash(PLACEHOLDER, { start: 0, end: PLACEHOLDER.length });

/** Whether two tokens are the same word as far as features go (their first MAX_TOKEN characters). */
function sameWord(text: string, a: Token, b: Token): boolean {
  const length = Math.min(a.end - a.start, MAX_TOKEN);
  if (Math.min(b.end - b.start, MAX_TOKEN) !== length) return false;
  for (let i = 0; i < length; i++) if (text.charCodeAt(a.start + i) !== text.charCodeAt(b.start + i)) return false;
  return true;
}

/** Work arrays of tokenFeaturesOf, grown to the longest text seen. */
interface PerTextScratch {
  size: number;
  /** Per distinct word: its first token, and its hashes as a word and as the first half of a bigram. */
  first: Uint32Array; asWord: Uint32Array; asBigram: Uint32Array;
  /** 1 when the distinct word is an identity word hashed per HashingSpec.identityWords. */
  identity: Uint8Array;
  /** Hash table of distinct words, at most half full: id + 1 per used slot. */
  slots: Uint32Array;
  feats: BucketList;
}
let perText: PerTextScratch | undefined;

function perTextScratch(tokens: number): PerTextScratch {
  if (perText === undefined || perText.size < tokens) {
    // A power of two, so the hash table's size is one too.
    let size = Math.max(64, 2 * (perText?.size ?? 0));
    while (size < tokens) size *= 2;
    const a = (): Uint32Array => new Uint32Array(size);
    perText = { size, first: a(), asWord: a(), asBigram: a(), identity: new Uint8Array(size), slots: new Uint32Array(2 * size), feats: { buf: new Uint32Array(size * 12), n: 0 } };
  }
  return perText;
}

/**
 * The distinct buckets of tokens [tFrom, tTo): the same set featurize() gives for a range whose
 * bounds do not cut a token, without hashing each token again for every overlapping window.
 * (`_buckets`, the bucket count, is no longer needed: the set is sized by the window, not the model.)
 */
export function featuresOfTokens(tf: TokenFeatures, _buckets: number, tFrom: number, tTo: number): Uint32Array {
  // At most this many distinct buckets: every token's features and bigram.
  let total = tTo - tFrom;
  for (let t = tFrom; t < tTo; t++) total += tf.to[t]! - tf.from[t]!;
  const set = windowSet(total, tf.words);
  const { table, mask, out, wordSeen, stamp } = set;
  let n = 0;
  for (let t = tFrom; t < tTo; t++) {
    // A word met before in this window (repeated words share one slice) adds nothing new.
    const w = tf.word[t]!;
    if (wordSeen[w] !== stamp) {
      wordSeen[w] = stamp;
      for (let i = tf.from[t]!, e = tf.to[t]!; i < e; i++) {
        const b = tf.feats[i]!;
        if (insert(table, mask, b)) out[n++] = b;
      }
    }
    if (t > tFrom) {
      const b = tf.bigram[t]!;
      if (b !== NO_BUCKET && insert(table, mask, b)) out[n++] = b;
    }
  }
  const distinct = newUint32Array(n);
  distinct.set(out.subarray(0, n));
  return distinct;
}

/**
 * Scratch of featuresOfTokens. The distinct buckets are kept in a small hash table (open addressing,
 * bucket + 1 per used slot, at most half full) rather than one mark per bucket: a window's few hundred
 * buckets then stay in the core's cache instead of touching a megabyte of marks.
 */
interface WindowSet {
  table: Int32Array;
  mask: number;
  out: Uint32Array;
  /** wordSeen[id] === stamp when the word's features are in this window's set already. */
  wordSeen: Uint32Array;
  stamp: number;
}
const windowScratch: WindowSet = { table: new Int32Array(1024), mask: 0, out: new Uint32Array(512), wordSeen: new Uint32Array(256), stamp: 0 };

/** The scratch, emptied and sized for `total` buckets and `words` distinct words. */
function windowSet(total: number, words: number): WindowSet {
  const s = windowScratch;
  let size = 16;
  while (size < 2 * total) size *= 2;
  if (s.table.length < size) s.table = new Int32Array(size);
  s.table.fill(0, 0, size);
  s.mask = size - 1;
  if (s.out.length < total) s.out = new Uint32Array(Math.max(total, 2 * s.out.length));
  if (s.wordSeen.length < words) s.wordSeen = new Uint32Array(Math.max(words, 2 * s.wordSeen.length));
  s.stamp = (s.stamp + 1) >>> 0;
  if (s.stamp === 0) {
    s.wordSeen.fill(0);
    s.stamp = 1;
  }
  return s;
}

/** Adds `bucket` to the table; false if it was there already. */
function insert(table: Int32Array, mask: number, bucket: number): boolean {
  const key = bucket + 1;
  // Buckets are hash values already, so their low bits spread evenly.
  for (let slot = bucket & mask; ; slot = (slot + 1) & mask) {
    const at = table[slot]!;
    if (at === key) return false;
    if (at === 0) {
      table[slot] = key;
      return true;
    }
  }
}
