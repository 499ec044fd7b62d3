import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import type { Verdict } from "../../src/classifiers/classifier.js";
import { DEFAULT_MODEL_PATH, decodeModel, encodeModel, loadTrainedClassifier } from "../../src/classifiers/engine/index.js";
import { readModelHeader } from "../../src/classifiers/model/model-file.js";

const classifier = loadTrainedClassifier();
const classify = (text: string): Verdict => classifier.classify(text) as Verdict;
const score = (v: Verdict, c: keyof Verdict["categories"]): number => v.categories[c]?.score ?? NaN;

const BENIGN_PARAGRAPH =
  "The town council met on Tuesday evening to review the budget for the new library wing. Members discussed " +
  "opening hours, the cost of shelving and a proposal to extend the children's reading room. ";
const longBenign = (n: number): string => BENIGN_PARAGRAPH.repeat(n);

describe("trained text classifier (committed model)", () => {
  it("judges text typed with typographic apostrophes as with plain ones (scores moved by up to 0.66)", () => {
    for (const text of ["I'm back to hurting myself every night.", "I just want the pain to stop. I don't see any point in going on.", "You're killing it with these new designs!", "Tom's sister is a dumb slut who sleeps around."]) {
      const curly = text.replace(/'/g, "\u2019");
      expect(classify(curly).categories, curly).toEqual(classify(text).categories);
    }
    // Markup and links around a text change nothing: markdown emphasis, HTML tags, a link (each
    // had made 14 to 59 of 352 written sentences change a flag, most of them losing every flag).
    for (const text of ["Kill yourself, nobody would miss you.", "You smell like garbage and you look even worse.", "Trans people are mentally ill freaks, not humans."]) {
      // A video or image id's digits read as leetspeak letters had made it a word ("dQw4w9WgXcQ").
      for (const dressed of [`**${text}**`, `<p>${text}</p>`, `${text} https://example.com/x?y=1`, `www.example.org/?p=12 ${text}`, `${text} https://youtu.be/dQw4w9WgXcQ`, `${text} https://imgur.com/a7B3xQ9`]) {
        expect(classify(dressed).categories, dressed).toEqual(classify(text).categories);
      }
    }
    // Nor do handles and Reddit names (a leading "@john_doe" had changed 33 of the 352 sentences' flags).
    for (const text of ["My boss is a greedy, lying piece of trash.", "Kill yourself, nobody would miss you.", "Trans people are mentally ill freaks, not humans."]) {
      for (const dressed of [`@john_doe ${text}`, `@jane @Bob_1 ${text}`, `u/someone ${text}`, `${text} /r/AskReddit`]) {
        expect(classify(dressed).categories, dressed).toEqual(classify(text).categories);
      }
    }
    // Nor does a transcript's speaker label ("User: " had changed 21 of them), at the start or on a later line.
    for (const text of ["Kill yourself, nobody would miss you.", "My boss is a greedy, lying piece of trash."]) {
      expect(classify(`User: ${text}`).categories, text).toEqual(classify(text).categories);
      expect(classify(`Assistant: hi\nUser: ${text}`).categories, text).toEqual(classify(`hi ${text}`).categories);
    }
    // A role word inside a sentence is a word: "the user: ..." reads as written.
    expect(classify("the user: you are a greedy, lying piece of trash.").categories).not.toEqual(classify("the you are a greedy, lying piece of trash.").categories);
    // A handle starting with "a" is a handle too ("@" and "a" fold into one letter).
    expect(classify("@Alice_B My boss is a greedy, lying piece of trash.").categories).toEqual(classify("My boss is a greedy, lying piece of trash.").categories);
    // A handle or name whose words read as harm is read: a message written as one is not hidden.
    for (const [text, category] of [["@kill_yourself_you_worthless_idiot", "harassment"], ["@i_want_to_kill_myself", "self_harm"], ["u/i-want-to-kill-myself", "self_harm"], ["r/kill_all_jews", "hate"], ["you @sshole", "harassment"], ["you are an @pe", "hate"]] as const) {
      expect(classify(text).categories[category]?.flagged, text).toBe(true);
    }
    // An email's "@" is no handle: the address is still read.
    expect(classify("idiot@example.com").categories.harassment?.flagged).toBe(true);
    // Nor does dropping markup and links open a way around: a sentence in brackets, a scheme
    // glued to a message, a message written as a link's path are read.
    for (const [text, category] of [["<i want to kill myself>", "self_harm"], ["<u r a worthless idiot, kill yourself>", "harassment"], ["a://kill_yourself_you_worthless_idiot", "harassment"], ["https://x.co/you-are-a-worthless-idiot-kill-yourself", "harassment"], ["https://x.co/i-will-k1ll-you", "harassment"], ["www.x.co/you-w0rthless-1diot", "harassment"], ["check this www.x.co/k1ll-yourself-n0w", "harassment"]] as const) {
      expect(classify(text).categories[category]?.flagged, text).toBe(true);
    }
    // And dashes and quotation marks as the ASCII ones.
    expect(classify("you\u2019re a \u201cworthless\u201d idiot\u2014go away").categories).toEqual(classify('you\'re a "worthless" idiot-go away').categories);
  });

  it("reports a versioned model id and only categories it evaluated, each with a score in [0, 1]", () => {
    expect(classifier.id).toMatch(/^text-/);
    const v = classify("hello there");
    for (const [c, s] of Object.entries(v.categories)) {
      expect(CATEGORY_IDS).toContain(c);
      expect(s.score).toBeGreaterThanOrEqual(0);
      expect(s.score).toBeLessThanOrEqual(1);
    }
    expect(Object.keys(v.categories).length).toBeGreaterThan(0);
  });

  it("is deterministic: same text, same verdict", () => {
    const text = "you are a worthless idiot and everyone hates you";
    expect(classify(text)).toEqual(classify(text));
  });

  it("flags a plain threat-laden insult and leaves benign requests alone", () => {
    const abusive = classify("you are a stupid worthless bitch, shut up");
    expect(abusive.categories.harassment?.flagged).toBe(true);
    const benign = classify("what's the weather tomorrow in paris");
    expect(Object.values(benign.categories).some((c) => c.flagged)).toBe(false);
  });

  it("resists obfuscation: leetspeak, spacing, stretched letters, look-alikes and zero-width characters", () => {
    const plain = score(classify("you are a stupid worthless bitch"), "harassment");
    for (const variant of ["y0u are a stup1d w0rthless b1tch", "you are a s t u p i d worthless b i t c h", "you are a stuuuupid worthlesss biiiitch", "yоu аre а stupid wоrthless bitсh", "you are a stu\u200bpid worth\u200cless bi\u200btch"]) {
      expect(score(classify(variant), "harassment")).toBeCloseTo(plain, 1);
    }
  });

  // Dropped, zero-width characters in place of spaces made one unknown word of a sentence: of 120
  // plainly harmful comparison sentences 72 flag as written, 4 with U+200B for every space.
  it("reads zero-width characters between words as spaces too, and inside a word as nothing", () => {
    const plain = classify("you are a stupid worthless bitch");
    for (const variant of ["you\u200bare\u200ba\u200bstupid\u200bworthless\u200bbitch", "you\u2060are\u2060a\u2060stupid\u2060worthless\u2060bitch", "you are a s\u200bt\u200bu\u200bp\u200bi\u200bd worthless bitch"]) {
      const verdict = classify(variant);
      expect(verdict.categories.harassment?.flagged, variant).toBe(true);
      expect(score(verdict, "harassment")).toBeCloseTo(score(plain, "harassment"), 1);
      // The explanation quotes the text as sent, zero-width characters and all.
      expect(verdict.explanations.harassment!.map((s) => s.text).join(" ").replace(/[\u200b\u2060]/g, "")).toMatch(/stupid|worthless|bitch/);
    }
    expect(Object.values(classify("what's\u200bthe\u200bweather\u200btomorrow\u200bin\u200bparis").categories).some((c) => c.flagged)).toBe(false);
  });

  it("scores one harmful paragraph inside long benign text as high as the paragraph alone", () => {
    const harmful = "You are a stupid worthless bitch and everybody hates you, shut up you idiot.";
    const alone = classify(harmful);
    const embedded = classify(`${longBenign(8)}${harmful} ${longBenign(8)}`);
    expect(embedded.categories.harassment?.flagged).toBe(true);
    expect(score(embedded, "harassment")).toBeGreaterThan(score(alone, "harassment") - 0.15);
    expect(classify(longBenign(16)).categories.harassment?.flagged).toBe(false);
  });

  it("explains flagged categories with code-point spans inside the harmful paragraph", () => {
    const prefix = `😀🎉 ${longBenign(6)}`;
    const harmful = "You are a stupid worthless bitch, shut up.";
    const text = `${prefix}${harmful} ${longBenign(6)}`;
    const v = classify(text);
    const spans = v.explanations.harassment ?? [];
    expect(spans.length).toBeGreaterThan(0);
    const cps = Array.from(text);
    const from = Array.from(prefix).length;
    for (const s of spans) {
      expect(s.start).toBeGreaterThanOrEqual(from);
      expect(s.end).toBeLessThanOrEqual(from + Array.from(harmful).length);
      expect(cps.slice(s.start, s.end).join("")).toBe(s.text);
      expect(s.weight).toBeGreaterThan(0);
    }
    expect(spans.map((s) => s.text.toLowerCase()).join(" ")).toMatch(/stupid|worthless|bitch/);
    // Categories that are not flagged carry no explanation.
    for (const c of Object.keys(v.explanations)) expect(v.categories[c as keyof Verdict["categories"]]?.flagged).toBe(true);
  });

  it("uses lexicon evidence for explicit sexual prose inside long benign text, with obfuscation", () => {
    const explicit = "She moaned as he fucked her, his c0ck deep in her wet pussy, and he came on her tits until she had an orgasm.";
    const v = classify(`${longBenign(10)}${explicit} ${longBenign(10)}`);
    expect(v.categories.sexual?.flagged).toBe(true);
    expect((v.explanations.sexual ?? []).some((s) => /c0ck|pussy|tits|fucked/.test(s.text))).toBe(true);
    expect(classify(longBenign(20)).categories.sexual?.flagged).toBe(false);
  });

  it("uses lexicon evidence for graphic violence in long text", () => {
    const gore = "They disembowelled the prisoner, his entrails spilling into a pool of blood, then decapitated him and mutilated the corpse.";
    const v = classify(`${longBenign(10)}${gore} ${longBenign(10)}`);
    expect(v.categories.violence_graphic?.flagged).toBe(true);
    expect(v.categories.violence?.flagged).toBe(true);
  });

  it("flags sexual_minors only when sexual content and a minor indicator meet", () => {
    const sexual = "he fucked her hard, his cock in her wet pussy";
    expect(classify(sexual).categories.sexual_minors?.flagged).toBe(false);
    expect(classify(`${sexual}, she is only a 13 year old schoolgirl`).categories.sexual_minors?.flagged).toBe(true);
    expect(classify("my kid's school sends home a lot of homework").categories.sexual_minors?.flagged).toBe(false);
  });
});

describe("model file", () => {
  it("round-trips and rejects a corrupt file", () => {
    const model = decodeModel(readFileSync(DEFAULT_MODEL_PATH));
    const again = decodeModel(encodeModel(model.header, Object.fromEntries(model.tensors)));
    expect(again.header.id).toBe(model.header.id);
    expect([...again.tensors.keys()]).toEqual([...model.tensors.keys()]);
    expect(() => decodeModel(Buffer.from("not a model"))).toThrow(/bad magic/);
    const bytes = readFileSync(DEFAULT_MODEL_PATH);
    const headerEnd = 12 + bytes.readUInt32LE(8);
    // Cut inside the header, and inside the tensors after it: both say the file is truncated.
    expect(() => decodeModel(bytes.subarray(0, headerEnd - 100))).toThrow(/truncated in its header/);
    expect(() => decodeModel(bytes.subarray(0, headerEnd + 5000))).toThrow(/truncated at tensor/);
  });

  it("decodes the same tensors from a file's own buffer (no copy) and from an unaligned view (copied)", () => {
    const bytes = readFileSync(DEFAULT_MODEL_PATH);
    const unaligned = Buffer.alloc(bytes.length + 1).subarray(1);
    bytes.copy(unaligned);
    const [a, b] = [decodeModel(bytes), decodeModel(unaligned)];
    expect(a.tensors.get("emb")!.buffer).toBe(bytes.buffer);
    for (const [name, t] of a.tensors) {
      const other = b.tensors.get(name)!;
      expect(other.byteOffset % 4).toBe(0);
      expect(Buffer.from(other.buffer, other.byteOffset, other.byteLength).equals(Buffer.from(t.buffer, t.byteOffset, t.byteLength))).toBe(true);
    }
  });

  it("refuses a file asking for a feature of a removed probe, rather than scoring without it", async () => {
    const { scorerOf } = await import("../../src/classifiers/engine/engine.js");
    const { constantModel } = await import("./constant-model.js");
    const model = constantModel("silent");
    expect(() => scorerOf(model)).not.toThrow();
    const asking = [
      { ...model.header, params: { ...model.header.params, maxPool: 1 } },
      { ...model.header, params: { ...model.header.params, attention: 1 } },
      { ...model.header, hashing: { ...model.header.hashing, vocabulary: ["word"] } },
    ];
    for (const header of asking) expect(() => scorerOf({ ...model, header })).toThrow(/does not read/);
  });

  it("reads the header alone, the same as a full decode gives", () => {
    const model = decodeModel(readFileSync(DEFAULT_MODEL_PATH));
    const header = readModelHeader();
    expect(header.id).toBe(model.header.id);
    expect(header.thresholds).toEqual(model.header.thresholds);
    expect(Object.keys(header.thresholds).length).toBeGreaterThan(0);
  });
});

describe("rule support bars apart from flag thresholds", () => {
  it("a rule reads the head's support against supportThresholds, not the (stricter) flag threshold", async () => {
    const { createEngine } = await import("../../src/classifiers/engine/engine.js");
    const model = decodeModel(readFileSync(DEFAULT_MODEL_PATH));
    const { header } = model;
    expect(header.supportThresholds?.harassment).toBeLessThan(header.thresholds.harassment!);
    // A veiled threat, flagged by the threats rule with the head's support (its phrase alone is too weak to flag).
    const text = "watch your back";
    const withBars = (h: Partial<typeof header>) => createEngine({ ...model, header: { ...header, ...h } }).classify(text) as Verdict;
    expect(withBars({}).categories.harassment?.flagged).toBe(true);
    // The same flag thresholds with the support bar raised: the rule no longer has the head's support.
    expect(withBars({ supportThresholds: { ...header.supportThresholds, harassment: 0.99 } }).categories.harassment?.flagged).toBe(false);
  });
});

describe("insults said of someone else", () => {
  // Written for this test: an insult of someone named, and one of an idea (as CAD's neutral posts have).
  const BOSS = "my boss is a complete asshole and everyone knows it";
  const IDEA = "socialism for the rich is a stupid term for it";

  it("raise the harassment score where the head leans that way, but flag nothing by themselves", async () => {
    const { createEngine } = await import("../../src/classifiers/engine/engine.js");
    const { constantModel } = await import("./constant-model.js");
    // Every head at 0.35: over half its bar of 0.5 (the support the rule asks), under the bar.
    const engine = createEngine(constantModel("leaning"));
    const [boss, bossWithout] = engine.scoreVariants(BOSS, [new Set(), new Set(["third-person-insults"])]).map((v) => v.harassment!);
    expect(boss!.score).toBeGreaterThan(bossWithout!.score + 0.05);
    expect(boss!.flagged).toBe(false);
    expect(bossWithout!.flagged).toBe(false);
  });

  it("never lower a score or change a flag of the trained classifier", async () => {
    const { createEngine } = await import("../../src/classifiers/engine/engine.js");
    const engine = createEngine(decodeModel(readFileSync(DEFAULT_MODEL_PATH)));
    for (const text of [BOSS, IDEA]) {
      const [shipped, without] = engine.scoreVariants(text, [new Set(), new Set(["third-person-insults"])]).map((v) => v.harassment!);
      expect(shipped!.score, text).toBeGreaterThanOrEqual(without!.score);
      expect(shipped!.flagged, text).toBe(without!.flagged);
    }
  });
});
