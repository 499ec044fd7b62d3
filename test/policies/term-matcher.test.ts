import { describe, expect, it } from "vitest";
import { validatePolicyRules, validatePolicyRulesCooperatively } from "../../src/policies/policy.js";
import { buildTermMatcher, buildTermMatcherCooperatively } from "../../src/policies/term-matcher.js";

const spans = (terms: string[], input: string) => buildTermMatcher(terms).find(input).map((h) => [h.term, h.start, h.end, h.text]);

describe("buildTermMatcher", () => {
  it("finds whole words only, with code-point spans of the input", () => {
    expect(spans(["grief"], "no grief here")).toEqual([[0, 3, 8, "grief"]]);
    expect(spans(["grief"], "griefing and begrief")).toEqual([]);
    // An astral character before the term counts as one code point.
    expect(spans(["grief"], "😀 grief")).toEqual([[0, 2, 7, "grief"]]);
  });

  it("matches inside runs of a script written without spaces, and only there", () => {
    expect(spans(["杀了你"], "我要杀了你，你这个贱人")).toEqual([[0, 2, 5, "杀了你"]]);
    expect(spans(["ฆ่า"], "ฉันจะฆ่าคุณคืนนี้")).toEqual([[0, 5, 8, "ฆ่า"]]);
    // Latin text beside it keeps whole words: "grief" inside "begrief" is no hit.
    expect(spans(["grief"], "我begrief")).toEqual([]);
  });

  it("quotes a word with the marks that end it (Devanagari vowel signs, a combining accent)", () => {
    expect(spans(["कमीने", "डालूँगा"], "मैं तुम्हें मार डालूँगा, कमीने")).toEqual([[1, 16, 23, "डालूँगा"], [0, 25, 30, "कमीने"]]);
    expect(spans(["cafe"], "the cafe\u0301 is open")).toEqual([[0, 4, 9, "cafe\u0301"]]);
  });

  it("matches obfuscated spellings: leetspeak, spacing, look-alikes, zero-width, stretching", () => {
    const terms = ["noobslayer", "camp rat"];
    expect(spans(terms, "you n00bsl4yer")).toEqual([[0, 4, 14, "n00bsl4yer"]]);
    expect(spans(terms, "a n.o.o.b.s.l.a.y.e.r!")).toEqual([[0, 2, 21, "n.o.o.b.s.l.a.y.e.r"]]);
    expect(spans(terms, "NООBSLAYER")).toEqual([[0, 0, 10, "NООBSLAYER"]]); // Cyrillic О
    expect(spans(terms, "noob\u200bslayer")).toEqual([[0, 0, 11, "noob\u200bslayer"]]);
    // A zero-width space in place of a space is read as one too (the text is read both ways).
    expect(spans(terms, "the\u200bcamp\u2060rat\u200bagain")).toEqual([[1, 4, 12, "camp\u2060rat"]]);
    expect(spans(terms, "caaaamp   rat")).toEqual([[1, 0, 13, "caaaamp   rat"]]);
  });

  it("a term with doubled letters needs them doubled in the text: stretched, spaced or leet, not single", () => {
    expect(spans(["ass", "butt", "good"], "I will come as soon as possible, but oh my God")).toEqual([]);
    expect(spans(["ass"], "what an ass, a s s, assss, a55")).toEqual([[0, 8, 11, "ass"], [0, 13, 18, "a s s"], [0, 20, 25, "assss"], [0, 27, 30, "a55"]]);
    expect(spans(["kill"], "the kil command")).toEqual([]);
    // Leet symbols double with themselves: "$$" skipped doubled nothing, and "pu$$y" went unmatched.
    expect(spans(["pussy", "asshole"], "pu$$y and a$$hole").map((h) => h[3])).toEqual(["pu$$y", "a$$hole"]);
    // A word that doubles a letter (twice: "good", "feed") is not a term that has it once.
    expect(spans(["god", "fed", "pop", "bob"], "good morning, feed the cat, poop, boob")).toEqual([]);
    expect(spans(["god"], "oh my god, oh my gooood")).toEqual([[0, 6, 9, "god"], [0, 17, 23, "gooood"]]);
    // A longer term still matches a letter stretched by one: the cheapest evasion.
    expect(spans(["kill", "idiot", "hate"], "kiill, idiiot, haate").map((h) => h[3])).toEqual(["kiill", "idiiot", "haate"]);
  });

  it("matches Cyrillic and Greek terms in any case (look-alike folding reads some capitals differently)", () => {
    expect(spans(["дурак"], "ДУРАК, Дурак, дурак").map((h) => h[3])).toEqual(["ДУРАК", "Дурак", "дурак"]);
    expect(spans(["ПИДОР"], "пидор").map((h) => h[3])).toEqual(["пидор"]);
    expect(spans(["μαλάκα"], "ΜΑΛΑΚΑ μαλάκα Μαλάκα").map((h) => h[3])).toEqual(["ΜΑΛΑΚΑ", "μαλάκα", "Μαλάκα"]);
    expect(spans(["сука блять"], "Сука Блять").map((h) => h[3])).toEqual(["Сука Блять"]);
  });

  // Found by an audit of the block list as a caller would try to slip past it.
  it("a look-alike doubles with the letter it imitates: one in a doubled pair does not slip past", () => {
    expect(spans(["apple", "ass", "kill", "nigger"], "apрle, asѕ, kilӏ, nigɡer").map((h) => h[3])).toEqual(["apрle", "asѕ", "kilӏ", "nigɡer"]);
    expect(spans(["apple"], "aple")).toEqual([]);
  });

  it("every invisible format character splits no word: tag characters, annotation marks, the Arabic tatweel", () => {
    for (const invisible of ["\u{E0041}", "\u{E0020}", "\uFFF9", "\u{1D173}", "\u{13430}", "\u{1BCA0}"]) {
      expect(spans(["kill"], `ki${invisible}ll`), JSON.stringify(invisible)).toHaveLength(1);
    }
    expect(spans(["كلب"], "كـلب").map((h) => h[3])).toEqual(["كـلب"]);
    // The blank letters still read as spaces, not as nothing.
    expect(spans(["kill me"], "kill\u3164me").map((h) => h[3])).toEqual(["kill\u3164me"]);
  });

  it("a word goes on through its marks: an Indic term is not found at the start of a longer word", () => {
    expect(spans(["साला"], "सालाना रिपोर्ट, तू साला है").map((h) => h[3])).toEqual(["साला"]);
    expect(spans(["कम"], "कमाना")).toEqual([]);
    expect(spans(["চোর"], "চোরাই মাল, চোর")).toEqual([[0, 11, 14, "চোর"]]);
  });

  it("keeps the kana voicing marks: バカ is not ハカ", () => {
    expect(spans(["バカ"], "ハカセ、お前はバカだ").map((h) => h[3])).toEqual(["バカ"]);
    expect(spans(["ばか"], "はかる")).toEqual([]);
    // Half-width kana with its voicing mark is the same word.
    expect(spans(["バカ"], "ﾊﾞｶ")).toHaveLength(1);
  });

  it("matches Cyrillic and Greek terms in mixed case too", () => {
    expect(spans(["блядь"], "БлЯдЬ").map((h) => h[3])).toEqual(["БлЯдЬ"]);
    expect(spans(["μαλακας"], "μΑΛΑΚΑΣ").map((h) => h[3])).toEqual(["μΑΛΑΚΑΣ"]);
    // A term in two readings of the text is one hit.
    expect(spans(["дурак"], "ДУРАК")).toHaveLength(1);
    // Refused on both lists whatever the case each is written in, as the matcher reads them alike.
    expect(() => validatePolicyRules({ blockList: [{ term: "Дурак" }], allowList: ["дурак"] })).toThrow(/on both the block list and the allow list/);
    expect(() => validatePolicyRules({ blockList: [{ term: "Μαλακας" }], allowList: ["μαλακας"] })).toThrow(/on both/);
  });

  it("keeps the vowel signs of Indic and South-East Asian scripts: they make the word", () => {
    // Dropped as accents, "कमीना" (scoundrel) and "कामना" (wish) both read "कमन".
    expect(spans(["कमीना"], "शुभ कामना, तुम कमीना हो").map((h) => h[3])).toEqual(["कमीना"]);
    // A precomposed letter with a nukta and the letter followed by the nukta read alike.
    expect(spans(["\u0958\u093e\u0924\u093f\u0932"], "\u0915\u093c\u093e\u0924\u093f\u0932").length).toBe(1);
    expect(spans(["kill"], "kiiiill them")).toEqual([[0, 0, 7, "kiiiill"]]);
    // A term without doubled letters still matches a stretched text.
    expect(spans(["hate"], "I haaate it")).toEqual([[0, 2, 8, "haaate"]]);
    expect(spans(["straße"], "STRASSE")).toEqual([[0, 0, 7, "STRASSE"]]);
    // The capital sharp s folds as the small one does (it lower-cases to ß after folding ran).
    expect(spans(["strasse"], "STRAẞE")).toEqual([[0, 0, 6, "STRAẞE"]]);
    // Different terms now, so one may be blocked and the other allowed.
    expect(validatePolicyRules({ blockList: [{ term: "ass" }], allowList: ["as"] }).allowList).toEqual(["as"]);
  });

  it("reports overlapping terms and terms that normalise alike", () => {
    expect(spans(["rat", "camp rat", "r4t"], "camp rat").sort()).toEqual([[0, 5, 8, "rat"], [1, 0, 8, "camp rat"], [2, 5, 8, "rat"]].sort());
  });

  it("the table and the sparse automaton find the same hits", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const word = () => Array.from({ length: 2 + Math.floor(rand() * 4) }, () => "abcdeéß"[Math.floor(rand() * 7)]).join("");
    const terms = Array.from({ length: 300 }, () => (rand() < 0.2 ? `${word()} ${word()}` : word()));
    const text = Array.from({ length: 400 }, word).join(" ");
    const dense = buildTermMatcher(terms).find(text);
    expect(dense.length).toBeGreaterThan(50);
    expect(buildTermMatcher(terms, { dense: false }).find(text)).toEqual(dense);
  });

  it("finds nothing with no terms or no match", () => {
    expect(spans([], "anything")).toEqual([]);
    expect(spans(["zebra"], "a horse")).toEqual([]);
  });

  it("builds a full-size list cooperatively: other work runs in between, and the hits are the same", async () => {
    let seed = 11;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const term = () => Array.from({ length: 100 }, () => "abcdefghij klmnop"[Math.floor(rand() * 17)]).join("").trim() || "x";
    const terms = Array.from({ length: 10_000 }, term);
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const validated = await validatePolicyRulesCooperatively({ blockList: terms.map((t) => ({ term: t })) });
    const matcher = await buildTermMatcherCooperatively(terms);
    clearInterval(ticking);
    // Each takes tens of milliseconds or more, given back in slices of about 4: timers ran meanwhile.
    expect(turns).toBeGreaterThan(2);
    expect(validated).toEqual(validatePolicyRules({ blockList: terms.map((t) => ({ term: t })) }));
    const text = `${terms[5]} and ${terms[9_999]} and ${terms[5]!.slice(0, 50)}`;
    expect(matcher.find(text)).toEqual(buildTermMatcher(terms).find(text));
    expect(matcher.find(text).map((hit) => hit.term)).toEqual(expect.arrayContaining([5, 9_999]));
  });
});
