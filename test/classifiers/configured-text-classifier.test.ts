import { describe, expect, it } from "vitest";
import { loadConfiguredTextClassifier } from "../../src/classifiers/configured-text-classifier.js";

// Found by an audit (session 51): TEXT_CLASSIFIER=pattern scored French threats 0 in every
// category, with no language and no word that it had not read them.
describe("TEXT_CLASSIFIER=pattern", () => {
  it("does not score text in a language its English patterns do not cover, and says so", async () => {
    const classifier = await loadConfiguredTextClassifier("pattern");
    const french = await classifier.classify("Je vais te tuer ce soir, sale connard.");
    expect(french.categories).toEqual({});
    expect(french.notEvaluated).toEqual({ reason: "unsupported_language", language: "fr" });
    const english = await classifier.classify("I will kill you tonight");
    expect(english.language).toBe("en");
    expect(english.notEvaluated).toBeUndefined();
    expect(english.categories.violence?.score).toBeGreaterThan(0);
  });
});
