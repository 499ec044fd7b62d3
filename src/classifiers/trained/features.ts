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
}

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
  const mask = spec.buckets - 1;
  const end = Math.min(tok.end, tok.start + MAX_TOKEN);
  emit(hashRange(text, tok.start, end, SEED_WORD) & mask);
  // Char n-grams over "<token>": boundary marks are folded into the hash as code 1 and 2.
  const len = end - tok.start + 2;
  for (let i = 0; i < len; i++) {
    let h = SEED_CHAR;
    for (let n = 1; n <= spec.maxN && i + n <= len; n++) {
      const p = i + n - 1;
      const code = p === 0 ? 1 : p === len - 1 ? 2 : text.charCodeAt(tok.start + p - 1);
      h = Math.imul(h ^ code, FNV_PRIME);
      if (n >= spec.minN) emit(mix(h, n) & mask);
    }
  }
}

/** Bucket of the bigram of two adjacent tokens. */
export function bigramFeature(text: string, a: Token, b: Token, spec: HashingSpec): number {
  const ha = hashRange(text, a.start, Math.min(a.end, a.start + MAX_TOKEN), SEED_BIGRAM);
  const hb = hashRange(text, b.start, Math.min(b.end, b.start + MAX_TOKEN), SEED_WORD);
  return mix(ha, hb) & (spec.buckets - 1);
}

interface Scratch { marks: Uint32Array; stamp: number; out: Uint32Array; n: number }
const scratch = new Map<number, Scratch>();

/**
 * The distinct feature buckets of `text[from, to)`. Features are binary (present or not) so a word
 * repeated for emphasis does not swamp the rest; models scale the sum by 1/sqrt(count).
 * Synchronous and allocation-light: a per-bucket-count scratch area is reused across calls.
 */
export function featurize(text: string, spec: HashingSpec, from = 0, to = text.length): Uint32Array {
  let st = scratch.get(spec.buckets);
  if (!st) {
    st = { marks: new Uint32Array(spec.buckets), stamp: 0, out: new Uint32Array(4096), n: 0 };
    scratch.set(spec.buckets, st);
  }
  st.stamp = (st.stamp + 1) >>> 0;
  if (st.stamp === 0) {
    st.marks.fill(0);
    st.stamp = 1;
  }
  st.n = 0;
  const s = st;
  const emit = (bucket: number): void => {
    if (s.marks[bucket] === s.stamp) return;
    s.marks[bucket] = s.stamp;
    if (s.n === s.out.length) {
      const bigger = new Uint32Array(s.out.length * 2);
      bigger.set(s.out);
      s.out = bigger;
    }
    s.out[s.n++] = bucket;
  };
  const tokens = tokenize(text, from, to);
  for (let t = 0; t < tokens.length; t++) {
    tokenFeatures(text, tokens[t]!, spec, emit);
    if (t > 0) emit(bigramFeature(text, tokens[t - 1]!, tokens[t]!, spec));
  }
  return s.out.slice(0, s.n);
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
  /** bigram[t] = bucket of (token t - 1, token t); bigram[0] is unused. */
  bigram: Uint32Array;
}

export function tokenFeaturesOf(text: string, tokens: readonly Token[], spec: HashingSpec): TokenFeatures {
  const T = tokens.length;
  const from = new Uint32Array(T);
  const to = new Uint32Array(T);
  const word = new Uint32Array(T);
  const bigram = new Uint32Array(T);
  const ids = new Map<string, number>();
  let buf = new Uint32Array(Math.max(64, T * 12));
  let n = 0;
  const emit = (bucket: number): void => {
    if (n === buf.length) {
      const bigger = new Uint32Array(buf.length * 2);
      bigger.set(buf);
      buf = bigger;
    }
    buf[n++] = bucket;
  };
  for (let t = 0; t < T; t++) {
    const tok = tokens[t]!;
    // Features depend only on the token's characters: hash each distinct word once.
    const w = text.slice(tok.start, Math.min(tok.end, tok.start + MAX_TOKEN));
    const seen = ids.get(w);
    if (seen !== undefined) {
      word[t] = seen;
      from[t] = from[firstOf[seen]!]!;
      to[t] = to[firstOf[seen]!]!;
    } else {
      const id = ids.size;
      ids.set(w, id);
      firstOf[id] = t;
      word[t] = id;
      from[t] = n;
      tokenFeatures(text, tok, spec, emit);
      to[t] = n;
    }
    if (t > 0) bigram[t] = bigramFeature(text, tokens[t - 1]!, tok, spec);
  }
  firstOf.length = 0;
  return { from, to, feats: buf.subarray(0, n), word, words: ids.size, bigram };
}
const firstOf: number[] = [];

/**
 * The distinct buckets of tokens [tFrom, tTo): the same set featurize() gives for a range whose
 * bounds do not cut a token, without hashing each token again for every overlapping window.
 */
export function featuresOfTokens(tf: TokenFeatures, buckets: number, tFrom: number, tTo: number): Uint32Array {
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
  const { marks, stamp } = st;
  let total = tTo - tFrom;
  for (let t = tFrom; t < tTo; t++) total += tf.to[t]! - tf.from[t]!;
  if (st.out.length < total) st.out = new Uint32Array(Math.max(total, st.out.length * 2));
  const out = st.out;
  let n = 0;
  for (let t = tFrom; t < tTo; t++) {
    for (let i = tf.from[t]!, e = tf.to[t]!; i < e; i++) {
      const b = tf.feats[i]!;
      if (marks[b] === stamp) continue;
      marks[b] = stamp;
      out[n++] = b;
    }
    if (t > tFrom) {
      const b = tf.bigram[t]!;
      if (marks[b] !== stamp) {
        marks[b] = stamp;
        out[n++] = b;
      }
    }
  }
  return out.slice(0, n);
}
