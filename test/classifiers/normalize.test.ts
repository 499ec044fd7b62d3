import { describe, expect, it } from "vitest";
import { normalizeText } from "../../src/classifiers/normalize/normalize.js";

const norm = (s: string): string => normalizeText(s).text;

describe("normalizeText", () => {
  it("undoes leetspeak inside words but leaves numbers alone", () => {
    expect(norm("I H4TE y0u")).toBe(norm("i hate you"));
    expect(norm("sh!t a$$")).toBe("shit as");
    expect(norm("$100 in 2024!")).toBe("$100 in 2024!");
  });

  it("joins spaced-out letters", () => {
    expect(norm("k i l l them")).toBe(norm("kill them"));
    expect(norm("k.i.l.l y.o.u")).toBe(norm("kill you"));
    expect(norm("I am a cat")).toBe("i am a cat");
  });

  it("collapses repeated letters so stretched words match", () => {
    expect(norm("kiiiiilllll")).toBe(norm("kill"));
    expect(norm("fuuuuuck")).toBe(norm("fuck"));
  });

  it("lets one character fold to at most four (a ligature of 18 made a 10,000-character text 180,000 units to read)", () => {
    expect(norm("⒀ ㎉")).toBe("(13) kcal");
    expect(norm("\uFDFA")).toBe("\uFDFA");
    expect([...norm("\uFDFA\uFDFB\u321D".repeat(1000))].length).toBe(3000);
  });

  it("folds Unicode look-alikes, compatibility forms and diacritics", () => {
    expect(norm("Кill уоu")).toBe(norm("kill you")); // Cyrillic К, у, о
    expect(norm("ℍ𝕒𝕥𝕖")).toBe("hate");
    expect(norm("Ｈａｔｅ")).toBe("hate");
    expect(norm("naïve café")).toBe("naive cafe");
    // The capital sharp s as the small one, though it lower-cases to ß only after folding.
    expect(norm("STRAẞE")).toBe(norm("straße"));
  });

  it("drops zero-width and other invisible characters", () => {
    expect(norm("ki\u200bl\u200dl")).toBe(norm("kill"));
    expect(norm("h\ufeffa\u2060te")).toBe("hate");
  });

  it("drops ASCII control characters and lone surrogates inside a word, and keeps whitespace as a space", () => {
    expect(norm("k\u0000i\u0008l\u007fl you")).toBe(norm("kill you"));
    expect(norm("h\ud800ate")).toBe("hate");
    expect(norm("h\udfffate")).toBe("hate");
    expect(norm("you\tidiot")).toBe(norm("you idiot"));
  });

  it("reads text behind a right-to-left override as it is displayed, up to the override's end", () => {
    expect(norm("\u202etoidi na era uoy")).toBe(norm("you are an idiot"));
    expect(norm("hi \u202etoidi na era uoy\u202c, bye")).toBe(norm("hi you are an idiot, bye"));
    // A line break ends it too; the next line reads as stored.
    expect(norm("\u202eoof\nbar")).toBe(norm("foo bar"));
    const { start } = normalizeText("hi \u202etoidi na era uoy\u202c, bye");
    for (let k = 1; k < start.length; k++) expect(start[k]!).toBeGreaterThanOrEqual(start[k - 1]!);
  });

  it("maps every normalised unit back to input code points", () => {
    const input = "😀 K\u200bI\u200bL\u200bL";
    const n = normalizeText(input);
    expect(n.text).toBe(norm("😀 kill"));
    const k = n.text.indexOf("k");
    const l = n.text.lastIndexOf("l");
    const cps = Array.from(input);
    // The emoji is one code point, so "K" is at code point 2 despite the surrogate pair.
    expect(n.start[k]).toBe(2);
    expect(cps.slice(n.start[k], n.end[l]).join("")).toBe("K\u200bI\u200bL\u200bL");
  });

  it("is deterministic and total on odd input", () => {
    const odd = "\u0000\ud800 \u0301\u0301 \t\n";
    expect(() => normalizeText(odd)).not.toThrow();
    expect(normalizeText("Same text").text).toBe(normalizeText("Same text").text);
  });
});
