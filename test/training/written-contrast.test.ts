import { describe, expect, it } from "vitest";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { CONTRAST_GROUPS, PROJECT_CONTRAST, readProjectContrast, writeContrastSet } from "../../src/training/datasets/written-contrast.js";

describe("project-written benign contrast set", () => {
  const rows = writeContrastSet();

  it("is deterministic: the same rows in the same order on every call", () => {
    expect(writeContrastSet()).toEqual(rows);
  });

  it("is all benign and in its own dataset", () => {
    for (const r of rows) {
      expect(r.dataset).toBe(PROJECT_CONTRAST);
      expect([...r.labels].every((v) => v === 0)).toBe(true);
    }
  });

  it("stays modest, with every family present and no duplicate text", () => {
    expect(rows.length).toBeGreaterThanOrEqual(300);
    expect(rows.length).toBeLessThanOrEqual(2000);
    const families = new Map<string, number>();
    for (const r of rows) families.set(r.slice, (families.get(r.slice) ?? 0) + 1);
    expect([...families.keys()].sort()).toEqual(["everyday", "neutral", "praise", "pride", "question", "support"]);
    for (const n of families.values()) expect(n).toBeGreaterThanOrEqual(50);
    expect(new Set(rows.map((r) => normalizeForMatching(r.text))).size).toBe(rows.length);
  });

  it("names every group in every family, and no derogatory, loaded or slogan words", () => {
    for (const g of CONTRAST_GROUPS) {
      for (const family of ["praise", "pride", "everyday", "neutral", "question", "support"]) {
        expect(rows.some((r) => r.slice === family && (r.text.includes(g.plural) || r.text.includes(g.adj) || r.text.includes(g.be)))).toBe(true);
      }
    }
    // Derogatory words in benign rows cost recall on insults and hate; negation and counter-speech
    // are left to the runtime frames.
    const words = new Set(rows.flatMap((r) => r.text.toLowerCase().split(/[^a-z']+/)));
    for (const w of ["hate", "stupid", "criminals", "disgusting", "dirty", "lazy", "inferior", "vermin", "illegals", "females", "white"]) {
      expect(words.has(w)).toBe(false);
    }
  });

  it("reads the same rows through the dataset reader signature, without the shared datasets folder", () => {
    expect(readProjectContrast("/nonexistent")).toEqual(rows);
  });
});
