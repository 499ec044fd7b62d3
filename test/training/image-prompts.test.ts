import { describe, expect, it } from "vitest";
import { getLexicons } from "../../src/classifiers/rules/lexicon/index.js";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { tokenize } from "../../src/classifiers/model/features.js";
import { PROJECT_IMAGE_PROMPTS, readImagePrompts, writeImagePrompts } from "../../src/training/datasets/image-prompts.js";

describe("project-written benign image prompts (tried as contrast for Nibbler, not wired in)", () => {
  const rows = writeImagePrompts();

  it("is deterministic given its seed, and a different seed writes different rows", () => {
    expect(writeImagePrompts()).toEqual(rows);
    expect(writeImagePrompts(7).map((r) => r.text)).not.toEqual(rows.map((r) => r.text));
  });

  it("is all benign, in its own dataset, with no duplicate text", () => {
    expect(rows.length).toBe(600);
    for (const r of rows) {
      expect(r.dataset).toBe(PROJECT_IMAGE_PROMPTS);
      expect([...r.labels].every((v) => v === 0)).toBe(true);
    }
    expect(new Set(rows.map((r) => normalizeForMatching(r.text))).size).toBe(rows.length);
  });

  it("holds no minor indicator, nudity or explicit word: those are where Nibbler's positives live", () => {
    const lex = getLexicons();
    for (const r of rows) {
      const norm = normalizeForMatching(r.text);
      const tokens = tokenize(norm);
      const words = tokens.map((t) => norm.slice(t.start, t.end));
      for (const list of [lex.minors, lex.nudity, lex.sexual]) expect(list.scan(norm, tokens, words), r.text).toEqual([]);
    }
  });

  it("reads the same rows through the dataset reader signature, without the shared datasets folder", () => {
    expect(readImagePrompts("/nonexistent")).toEqual(rows);
  });
});
