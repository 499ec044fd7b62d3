import { describe, expect, it } from "vitest";
import { compileTermList, evidenceScore, getLexicons, scanText } from "../../src/classifiers/rules/lexicon/index.js";
import { MAX_INDEXED } from "../../src/classifiers/rules/lexicon/lexicon.js";
import { normalizeText } from "../../src/classifiers/normalize/normalize.js";

const scan = (text: string) => scanText(getLexicons().sexual, normalizeText(text).text);

describe("lexicon matching", () => {
  it("gives every list the engine scans a bit in the shared word index (past that, a list reads every word)", () => {
    const lists = Object.values(getLexicons());
    expect(lists.length).toBeLessThanOrEqual(MAX_INDEXED);
    expect(lists.filter((list) => !list.indexed).map((list) => list.name)).toEqual([]);
  });

  it("matches whole words, not substrings", () => {
    expect(scan("a cocktail at the cockpit").hits).toHaveLength(0);
    expect(scan("his cock").hits.map((h) => h.term)).toEqual(["cock"]);
  });

  it("matches obfuscated spellings through normalisation", () => {
    expect(scan("her t1tt1es and his c0ck").hits.map((h) => h.term).sort()).toEqual(["cock", "titties"]);
    expect(scan("p u s s y").hits.map((h) => h.term)).toEqual(["pussy"]);
  });

  it("matches phrases and stems", () => {
    const list = compileTermList({ name: "t", terms: { "slit his throat": 1, "decapitat*": 1 } });
    const n = normalizeText("They slit his throat, then decapitated him").text;
    expect(scanText(list, n).hits.map((h) => h.term)).toEqual(["slit his throat", "decapitat*"]);
  });

  it("takes the longest phrase that starts at a word, whatever the list's order or weights", () => {
    // The short phrase comes first and weighs more: before the fix it won, as the first phrase found.
    const list = compileTermList({ name: "t", terms: { "deserve equal pay": 1, "deserve equal pay for equal work": 0.5 } });
    const n = normalizeText("Women deserve equal pay for equal work").text;
    expect(scanText(list, n).hits.map((h) => [h.term, h.weight])).toEqual([["deserve equal pay for equal work", 0.5]]);
    // Of two phrases of the same length, the heavier.
    const same = compileTermList({ name: "t", terms: { "kill him": 0.4, "kill her": 0.9, "kill them": 0.6 } });
    expect(scanText(same, normalizeText("I will kill her").text).hits.map((h) => h.weight)).toEqual([0.9]);
  });

  it("scores density: dense explicit text high, one stray word in long text low", () => {
    const dense = scan("he fucked her, his cock in her pussy until she came, cum on her tits");
    const stray = scan(`${"The committee reviewed the annual budget and the new library wing. ".repeat(20)} naked`);
    expect(evidenceScore(dense.hits, dense.tokens)).toBeGreaterThan(0.8);
    expect(evidenceScore(stray.hits, stray.tokens)).toBeLessThan(0.2);
  });
});
