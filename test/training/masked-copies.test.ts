import { describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { buildCorpus } from "../../src/training/corpus.js";
import { example, makeLabels } from "../../src/training/datasets/example.js";
import { maskedCopy, maskSalience, maskWord } from "../../src/training/masked-copies.js";

describe("masked copies of training texts (masked-copies.ts)", () => {
  it("masks a word as people do, in the normaliser's form of a run of '*'", () => {
    expect(maskWord("kil", 0)).toBe("k*l");
    expect(maskWord("fagot", 6)).toBe("f*g*t");
    expect(maskWord("fuck", 8)).toBe("f*k");
    expect(maskWord("cunt", 9)).toBe("c*");
    expect(maskWord("shh", 2)).toBe("s*h");
    // What a caller's masked word becomes, so that training and scoring read one form.
    expect(normalizeForMatching("f**k")).toBe(maskWord("fuck", 8));
    expect(normalizeForMatching("k*ll")).toBe(maskWord(normalizeForMatching("kill"), 0));
  });

  // Twelve texts say "kill" and are harmful, three say it harmlessly; "meeting" is on both sides alike.
  const harmful = Array.from({ length: 12 }, (_, i) => example("toy", "h", `i will kill you number ${i} after the meeting`, makeLabels({ violence: 1 }, "benign")));
  const harmless = Array.from({ length: 3 }, (_, i) => example("toy", "b", `we will kill time ${i} before the meeting`, makeLabels({}, "benign")));
  const filler = Array.from({ length: 40 }, (_, i) => example("toy", "b", `see you at the meeting about item ${i}`, makeLabels({}, "benign")));
  const texts = [...harmful, ...harmless, ...filler].map((e) => ({ norm: normalizeForMatching(e.text), example: e }));

  it("learns which words to mask from the labels: over-represented in harmful texts, not the frequent ones", () => {
    const salience = maskSalience(texts, 3);
    expect(salience.has("kil")).toBe(true);
    expect(salience.has("meting")).toBe(false);
    // The most frequent words are never masked, whatever their labels.
    expect(maskSalience(texts, 300).size).toBe(0);
  });

  it("masks one word of a text wherever it occurs, harmful texts and harmless ones alike", () => {
    const salience = maskSalience(texts, 3);
    const masked = Array.from({ length: 200 }, (_, seed) => maskedCopy("we wil kil time and kil it", salience, seed)!);
    for (const { text, mask } of masked) {
      expect(text.length).toBeLessThanOrEqual("we wil kil time and kil it".length);
      expect(text).toContain(mask);
      expect(mask).toContain("*");
    }
    // In half the copies a salient word, in the rest any word: a mask alone must not mean harm.
    const ofKill = masked.filter((m) => /k\*/.test(m.text)).length;
    expect(ofKill).toBeGreaterThan(60);
    expect(ofKill).toBeLessThan(180);
    // Every occurrence of the word is masked.
    for (const m of masked.filter((c) => /k\*/.test(c.text))) expect(m.text.split(m.mask).length).toBe(3);
  });

  it("adds the copies to the training split only, with their text's labels, without changing the originals' weights", () => {
    const examples = [...harmful, ...harmless, ...filler];
    const options = { hashing: { buckets: 1 << 12, minN: 3, maxN: 5 }, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0.2, datasetCap: 20 };
    const plain = buildCorpus(examples, options);
    const withCopies = buildCorpus(examples, { ...options, maskedCopies: 1 });
    expect(withCopies.rows).toBeGreaterThan(plain.rows);
    const H = CATEGORY_IDS.length;
    const calibration = (c: typeof plain) => Array.from(c.split).filter((s) => s === 1).length;
    expect(calibration(withCopies)).toBe(calibration(plain));
    // Each copy follows its original and carries its labels and weight.
    let copies = 0;
    for (let r = 1; r < withCopies.rows; r++) {
      if (withCopies.example[r] !== withCopies.example[r - 1]) continue;
      copies++;
      expect(withCopies.split[r]).toBe(0);
      expect(withCopies.labels.subarray(r * H, r * H + H)).toEqual(withCopies.labels.subarray((r - 1) * H, (r - 1) * H + H));
      expect(withCopies.weight[r]).toBe(withCopies.weight[r - 1]);
    }
    expect(copies).toBe(withCopies.rows - plain.rows);
    expect(withCopies.weight[0]).toBe(plain.weight[0]);
  });
});
