import { describe, expect, it } from "vitest";
import { loadConfiguredTextClassifier } from "../../src/classifiers/configured-text-classifier.js";
import { MAX_SPANS } from "../../src/classifiers/engine/span-choice.js";

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

  // applyPolicy reads a list of MAX_SPANS spans as possibly cut (other evidence unshown); the
  // pattern classifier kept up to 5, so a complete list of 3 or 4 was read as cut.
  it("explains a category by at most the engine's MAX_SPANS spans", async () => {
    const classifier = await loadConfiguredTextClassifier("pattern");
    const verdict = await classifier.classify("kill you, kill you, kill you, kill you, kill you, idiot idiot idiot idiot idiot");
    expect(verdict.explanations.violence).toHaveLength(MAX_SPANS);
    expect(verdict.explanations.harassment).toHaveLength(MAX_SPANS);
  });
});
