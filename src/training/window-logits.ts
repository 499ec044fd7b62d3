import { isSequenceScorer } from "../classifiers/model/conv-scorer.js";
import { featurize, tokenFeaturesOf, tokenize, type HashingSpec, type TokenFeatures } from "../classifiers/model/features.js";
import type { Scorer } from "../classifiers/model/scorers.js";
import type { Corpus } from "./corpus.js";

/** Raw logits of text[from, to) as the engine scores a window: with its tokens for the conv family. */
export function windowLogits(scorer: Scorer, text: string, spec: HashingSpec, from: number, to: number, out: Float64Array): void {
  const features = featurize(text, spec, from, to);
  if (!isSequenceScorer(scorer)) return scorer.logits(features, out);
  const tokens = tokenize(text, from, to);
  scorer.windowLogits(features, tokenFeaturesOf(text, tokens, spec), 0, tokens.length, out);
}

/** Raw logits of corpus row r (its bag features, and its token sequence when the corpus has them). */
export function rowLogits(scorer: Scorer, corpus: Corpus, r: number, out: Float64Array): void {
  const features = corpus.feats.subarray(corpus.offsets[r]!, corpus.offsets[r + 1]!);
  const seq = corpus.sequences;
  if (!isSequenceScorer(scorer) || !seq) return scorer.logits(features, out);
  const tf = rowTokenFeatures(corpus, r);
  scorer.windowLogits(features, tf, 0, tf.from.length, out);
}

/** A corpus row's tokens in the engine's TokenFeatures shape (word ids local to the row). */
function rowTokenFeatures(corpus: Corpus, r: number): TokenFeatures {
  const seq = corpus.sequences!;
  const a = seq.offsets[r]!, T = seq.offsets[r + 1]! - a;
  const local = new Map<number, number>();
  const from = new Uint32Array(T), to = new Uint32Array(T), word = new Uint32Array(T);
  const parts: number[] = [];
  for (let t = 0; t < T; t++) {
    const u = seq.tokens[a + t]!;
    let id = local.get(u);
    if (id === undefined) {
      id = local.size;
      local.set(u, id);
      const start = parts.length;
      for (let i = seq.wordOffsets[u]!; i < seq.wordOffsets[u + 1]!; i++) parts.push(seq.wordFeats[i]!);
      from[t] = start;
      to[t] = parts.length;
    } else {
      const first = word.indexOf(id);
      from[t] = from[first]!;
      to[t] = to[first]!;
    }
    word[t] = id;
  }
  return { from, to, feats: Uint32Array.from(parts), word, words: local.size, bigram: new Uint32Array(T) };
}
