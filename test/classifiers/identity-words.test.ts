import { describe, expect, it } from "vitest";
import { NORMALIZED_IDENTITY_WORDS } from "../../src/classifiers/model/identity-words.js";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { featuresOfTokens, featurize, tokenFeaturesOf, tokenize, type HashingSpec } from "../../src/classifiers/model/features.js";

// Sentences written for these tests (not from any dataset).
const KEEP: HashingSpec = { buckets: 1 << 18, minN: 3, maxN: 5 };
const DROP: HashingSpec = { ...KEEP, identityWords: "drop" };
const PLACEHOLDER: HashingSpec = { ...KEEP, identityWords: "placeholder" };

const sorted = (buckets: Uint32Array) => [...buckets].sort((a, b) => a - b);
/** The engine's path: every token hashed once, then a window's distinct buckets. */
const viaTokens = (text: string, spec: HashingSpec) => {
  const tokens = tokenize(text);
  return featuresOfTokens(tokenFeaturesOf(text, tokens, spec), spec.buckets, 0, tokens.length);
};

describe("identity words in the hashed features", () => {
  it("add no feature at all when the spec drops them: the sentence hashes as if the word were absent", () => {
    const without = sorted(featurize("people deserve equal rights", DROP));
    for (const word of NORMALIZED_IDENTITY_WORDS) {
      const text = `${word} people deserve equal rights`;
      expect(sorted(featurize(text, DROP)), word).toEqual(without);
      expect(sorted(viaTokens(text, DROP)), word).toEqual(without);
    }
  });

  it("drop the bigrams on both sides of the word, and nothing else", () => {
    // The words on either side stay, but no bigram joins them across the dropped word.
    const union = (...parts: string[]) => sorted(new Uint32Array(new Set(parts.flatMap((p) => [...featurize(p, DROP)]))));
    expect(sorted(featurize("i love my muslim neighbours", DROP))).toEqual(union("i love my", "neighbours"));
    expect(sorted(viaTokens("we met two gay men and a trans woman", DROP))).toEqual(union("we met two", "men and a"));
  });

  it("hash as one shared word in placeholder mode: the model knows a group is named, not which", () => {
    const gay = sorted(featurize("gay people deserve equal rights", PLACEHOLDER));
    for (const word of NORMALIZED_IDENTITY_WORDS) {
      const text = `${word} people deserve equal rights`;
      expect(sorted(featurize(text, PLACEHOLDER)), word).toEqual(gay);
      expect(sorted(viaTokens(text, PLACEHOLDER)), word).toEqual(gay);
    }
    // Two features more than dropping the word: the placeholder and its bigram with "people".
    expect(gay.length).toBe(sorted(featurize("people deserve equal rights", DROP)).length + 2);
    expect(sorted(viaTokens("two muslim women and a gay man", PLACEHOLDER))).toEqual(sorted(featurize("two jewish women and a lesbian man", PLACEHOLDER)));
  });

  it("are hashed like any word by specs without the flag (model files made before it)", () => {
    expect(sorted(featurize("gay people deserve equal rights", KEEP))).not.toEqual(sorted(featurize("people deserve equal rights", KEEP)));
    expect(sorted(viaTokens("gay people deserve equal rights", KEEP))).toEqual(sorted(featurize("gay people deserve equal rights", KEEP)));
  });

  it("match the words as normalised text spells them, doubled letters and all", () => {
    // Features are hashed from normalised text, where "immigrants" becomes "imigrants".
    for (const text of ["Immigrants make our city better", "Refugees are welcome here", "Buddhists meditate", "QUEER joy", "Handicapped parking"]) {
      const norm = normalizeForMatching(text);
      const withoutFirst = norm.slice(norm.indexOf(" ") + 1);
      expect(sorted(featurize(norm, DROP)), text).toEqual(sorted(featurize(withoutFirst, DROP)));
    }
  });

  it("match whole words only: longer words that contain one keep their features", () => {
    expect(sorted(featurize("a gaylord street sign", DROP))).not.toEqual(sorted(featurize("a street sign", DROP)));
  });
});
