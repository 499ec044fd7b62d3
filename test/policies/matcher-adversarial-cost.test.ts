import { describe, expect, it } from "vitest";
import { compilePolicy, findPolicyTerms } from "../../src/policies/apply-policy.js";
import { letterRuns } from "../../src/policies/doubled-letters.js";
import { validatePolicyRules } from "../../src/policies/policy.js";
import { indexLetterRuns } from "../../src/policies/span-letter-runs.js";
import { codePointOffsets } from "../../src/base/code-points.js";

/** Pieces of text that fold otherwise than they are written (no capital sigma: see the documented difference below). */
const PIECES = [
  ..."abcdegiklopstuz ABS.,-'",
  ..."0134579$@!|+€£§¢°¡†",
  ..."аеорсхДдкАРОС", // Cyrillic look-alikes, in both cases
  "ß", "ẞ", "ss", "İ", "ſ",
  "\u0301", "\u0308", "\u0316", "\u0323", "e\u0301", "a\u0308", // combining marks, typed apart
  "ﬀ", "ﬁ", "ﬂ", "ﬃ", "Ĳ", // ligatures
  "ａ", "Ａ", "ｓ", "０", "＄", // fullwidth
  "😀", "👍🏽", "👨‍👩‍👧", "\u200b", "\u200d", "\ufe0f",
  "甲", "乙", "株", "式", "会", "社", "㍿", "㌀",
  "가", "각", "\u1100", "\u1161", "\u11a8", "ㄱ", "ㅏ", "ㄴ", // Hangul: syllables, conjoining and compatibility jamo
  "ｶ", "ﾞ", "ﾟ", "か", "\u3099", // half-width kana and voicing marks
  "𝐚", "𝐬", "Ⓢ", "ⓢ", "¹", "½",
  "क", "ि", "ा", "ं",
];

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/** Every span [start, end) of `input` by code points, as indexLetterRuns and as letterRuns of its text count them. */
function everySpan(input: string): { span: string; indexed: { runs: number; pairs: number }; direct: { runs: number; pairs: number } }[] {
  const unitAt = codePointOffsets(input);
  const index = indexLetterRuns(input, unitAt);
  const points = unitAt.length - 1;
  const out = [];
  for (let start = 0; start <= points; start++) {
    for (let end = start; end <= points; end++) {
      const span = input.slice(unitAt[start], unitAt[end]);
      out.push({ span, indexed: index.runsIn(start, end), direct: letterRuns(span) });
    }
  }
  return out;
}

const disagreements = (input: string) => everySpan(input).filter((s) => s.indexed.runs !== s.direct.runs || s.indexed.pairs !== s.direct.pairs);

describe("span letter runs, folded once per text", () => {
  it("counts every span of random texts as letterRuns counts its text", () => {
    const random = lcg(20240611);
    for (let n = 0; n < 400; n++) {
      const length = 1 + Math.floor(random() * 24);
      let input = "";
      for (let i = 0; i < length; i++) input += PIECES[Math.floor(random() * PIECES.length)];
      expect(disagreements(input), JSON.stringify(input)).toEqual([]);
    }
  });

  it("counts crafted spans alike: stretched, leet, look-alike, ß, marks, ligatures, fullwidth, compatibility and jamo", () => {
    const crafted = [
      "ass a s s asss a55 a$$ pu$$y p0op good gooood god feed fed",
      "apрle Аpple ДДд kkk кк ÀÀ a\u0301a\u0301 a\u0301\u0301a aa\u0301",
      "straße STRASSE ßs sß ẞẞ",
      "ﬀf fﬀ ﬁi ｆｆ ＡＡａ ０0o ＄$",
      "㍿㍿ 株㍿ ㍿社社 ㌀㌀",
      "\u1100\u1161\u1100\u1161 가가 \u1100\u1161\u11a8각 ㄱㅏ가 ㄱㄱ",
      "ｶﾞｶﾞガ ｶｶﾞ かか\u3099 か\u3099か",
      "😀😀 👍🏽👍🏽 𝐚𝐚a 𝐬s ⓢⓢ ¹1",
      "क\u093fक\u093f किकि",
      `x${"\u0301".repeat(40)}x`, // a cluster past MAX_CLUSTER: its marks are skipped either way
    ];
    for (const input of crafted) expect(disagreements(input), input).toEqual([]);
  });

  it("reads a capital sigma alone as σ, where a whole span reads a final one as ς (the documented difference)", () => {
    expect(letterRuns("ΑΣΣ")).toEqual({ runs: 0, pairs: 0 }); // "ασς": σ and ς differ
    const [whole] = everySpan("ΑΣΣ").filter((s) => s.span === "ΑΣΣ");
    expect(whole!.indexed).toEqual({ runs: 1, pairs: 1 });
  });
});

/** The audit's policy A: every substring of "甲乙甲乙…" up to 99 letters long, its first letter doubled, which the text never doubles. */
function policyA() {
  const alternating = (length: number, phase: number) => Array.from({ length }, (_, i) => ((i + phase) % 2 ? "乙" : "甲")).join("");
  const terms: string[] = [];
  for (let length = 1; length <= 99; length++) for (const phase of [0, 1]) terms.push(alternating(length, phase)[0] + alternating(length, phase));
  return compilePolicy({ id: "pol_a", version: 1, ...validatePolicyRules({ thresholds: {}, block_list: terms.map((term) => ({ term, category: "custom" })), allow_list: [] }) });
}

/** The audit's policy B: the same over "株式会社", written mostly with "㍿" (four letters in one code point). */
function policyB() {
  const word = "株式会社";
  const terms: string[] = [];
  for (let phase = 0; phase < 4; phase++) {
    for (let length = 2; length <= 300; length++) {
      let raw = word[phase]! + word[phase]!;
      let at = 1;
      while (at < length && (phase + at) % 4 !== 0) raw += word[(phase + at++) % 4]!;
      for (; length - at >= 4; at += 4) raw += "㍿";
      while (at < length) raw += word[(phase + at++) % 4]!;
      if ([...raw].length <= 100) terms.push(raw);
    }
  }
  return compilePolicy({ id: "pol_b", version: 1, ...validatePolicyRules({ thresholds: {}, block_list: terms.map((term) => ({ term, category: "custom" })), allow_list: [] }) });
}

describe("a policy of doubled-letter terms in a script written without spaces", () => {
  // Before the index, these took 5-10 s (policy A) and about 150 s (policy B) per 10,000 characters.
  it("matches 10,000 characters that never double a letter, finding nothing", () => {
    expect(findPolicyTerms("甲乙".repeat(5000), policyA())).toEqual([]);
    expect(findPolicyTerms(`${"甲\u200b乙\u200b".repeat(2500)}`, policyA())).toEqual([]);
    expect(findPolicyTerms(`${"甲乙".repeat(5000).slice(0, 9999)}Д`, policyA())).toEqual([]);
    expect(findPolicyTerms("㍿".repeat(10_000), policyB())).toEqual([]);
  }, 60_000);

  it("still finds the hits it found before, with their spans", () => {
    const a = policyA();
    const found = (text: string) => findPolicyTerms(text, a).map((hit) => [hit.term, hit.start, hit.end, hit.text]);
    expect(found("甲乙甲乙甲乙")).toEqual([]);
    expect(found("甲乙甲甲乙甲乙")).toEqual([[4, 0, 4, "甲乙甲甲"], [6, 0, 5, "甲乙甲甲乙"], [8, 0, 6, "甲乙甲甲乙甲"], [10, 0, 7, "甲乙甲甲乙甲乙"]]);
    expect(found("甲甲乙 乙乙甲乙甲 甲乙乙甲乙甲甲")).toEqual([
      [0, 0, 2, "甲甲"], [2, 0, 3, "甲甲乙"], [1, 4, 6, "乙乙"], [3, 4, 7, "乙乙甲"], [5, 4, 8, "乙乙甲乙"], [7, 4, 9, "乙乙甲乙甲"],
      [2, 10, 13, "甲乙乙"], [4, 10, 14, "甲乙乙甲"], [6, 10, 15, "甲乙乙甲乙"], [8, 10, 17, "甲乙乙甲乙甲甲"],
    ]);
    expect(found("㍿甲甲乙乙")).toEqual([[0, 1, 3, "甲甲"], [1, 3, 5, "乙乙"]]);
    // 10,000 characters that double a letter at the start: the hits of its first 200 as a text of its own.
    const long = `甲${"甲乙".repeat(5000)}`;
    expect(findPolicyTerms(long, a).length).toBeGreaterThan(0);
    expect(findPolicyTerms(long, a)).toEqual(findPolicyTerms(long.slice(0, 200), a));
  }, 60_000);

  it("stops checking doubled letters once a text has failed two checks per unit (this list fails about 100 per unit)", () => {
    const a = policyA();
    // Near the end of 10,000 characters the text's checks are spent: the same double is no hit there,
    // where it was before the bound (terms 196 and 197 over 9894-9999).
    expect(findPolicyTerms(`${"甲乙".repeat(4996)}甲甲乙甲乙甲乙`, a)).toEqual([]);
    expect(findPolicyTerms(`${"甲乙".repeat(10)}甲甲乙甲乙甲乙`, a).length).toBeGreaterThan(0);
  }, 60_000);
});
