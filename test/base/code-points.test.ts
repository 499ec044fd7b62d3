import { describe, expect, it } from "vitest";
import { codePointArray, codePointLength, codePointSlicer } from "../../src/base/code-points.js";

const HIGH = "\ud83d"; // a high surrogate alone
const LOW = "\ude00"; // a low surrogate alone
const SMILE = "\ud83d\ude00"; // 😀, one code point in two units

// The texts each rule must agree on: the string iterator's count is the reference.
const TEXTS = ["", "plain ascii", "é, ß and 日本語", SMILE, `a${SMILE}b`, HIGH, LOW, `${LOW}${HIGH}`, `x${HIGH}`, `${HIGH}y`, `${HIGH}${HIGH}${LOW}`, `${SMILE}${LOW}${SMILE}${HIGH}`];

describe("codePointLength", () => {
  it.each(TEXTS.map((text) => [JSON.stringify(text), text]))("counts %s as the string iterator does", (_, text) => {
    expect(codePointLength(text)).toBe([...text].length);
  });

  it("counts a lone surrogate as one code point, and a pair as one", () => {
    expect(codePointLength(HIGH)).toBe(1);
    expect(codePointLength(LOW)).toBe(1);
    expect(codePointLength(`${LOW}${HIGH}`)).toBe(2);
    expect(codePointLength(`${HIGH}${SMILE}`)).toBe(2);
    expect(codePointLength(`${SMILE}${SMILE}`)).toBe(2);
  });

  it("stops counting at stopAt, and counts exactly below it", () => {
    const text = SMILE.repeat(10);
    expect(codePointLength(text, 4)).toBe(4);
    expect(codePointLength(text, 10)).toBe(10);
    expect(codePointLength(text, 11)).toBe(10);
    expect(codePointLength("a".repeat(1_000_000), 10_001)).toBe(10_001);
    expect(codePointLength("abc", 0)).toBe(0);
  });
});

describe("codePointArray", () => {
  it.each(TEXTS.map((text) => [JSON.stringify(text), text]))("splits %s as Array.from does", (_, text) => {
    expect(codePointArray(text)).toEqual(Array.from(text));
    expect(codePointArray(text)).toHaveLength(codePointLength(text));
  });
});

describe("codePointSlicer", () => {
  it.each(TEXTS.map((text) => [JSON.stringify(text), text]))("slices %s by code-point offsets", (_, text) => {
    const points = Array.from(text);
    const slice = codePointSlicer(text);
    for (let start = 0; start <= points.length + 1; start++) {
      for (let end = start; end <= points.length + 1; end++) expect(slice(start, end)).toBe(points.slice(start, end).join(""));
    }
  });

  it("slices a text without surrogates by UTF-16 index", () => {
    const slice = codePointSlicer("I will find you");
    expect(slice(2, 6)).toBe("will");
    expect(slice(7, 100)).toBe("find you");
  });

  it("keeps a lone surrogate as a code point of its own", () => {
    const slice = codePointSlicer(`a${HIGH}b${SMILE}c`);
    expect(slice(1, 2)).toBe(HIGH);
    expect(slice(2, 4)).toBe(`b${SMILE}`);
    expect(slice(4, 5)).toBe("c");
  });
});
