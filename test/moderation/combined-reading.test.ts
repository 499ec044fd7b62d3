import { describe, expect, it } from "vitest";
import type { Verdict } from "../../src/classifiers/classifier.js";
import { loadTrainedClassifier } from "../../src/classifiers/engine/index.js";
import { readModelHeader } from "../../src/classifiers/model/model-file.js";
import { combinedTextOf, PAIR_READING_MAX_LENGTH, pairReadingLengths, readCombined, type TextItemReading } from "../../src/moderation/combined-reading.js";
import { WINDOW } from "../../src/training/settings.js";

const NO_TEXT = { reason: "no_text", language: "und" } as const;
const FRENCH = { reason: "unsupported_language", language: "fr" } as const;
const items = (...list: (string | [string, TextItemReading["notEvaluated"]])[]): TextItemReading[] =>
  list.map((entry, index) => (typeof entry === "string" ? { index, text: entry } : { index, text: entry[0], notEvaluated: entry[1] }));

/** A scripted classifier: flags violence where a text holds "hurt" and "find" (a threat split in two), with spans on both words. */
function splitThreatModel() {
  const read: string[] = [];
  const classify = (text: string): Verdict => {
    read.push(text);
    const points = Array.from(text);
    const at = (word: string) => {
      const unit = text.indexOf(word);
      return unit < 0 ? -1 : Array.from(text.slice(0, unit)).length;
    };
    const find = at("find");
    const hurt = at("hurt");
    const whole = find >= 0 && hurt >= 0 && points.length < 60;
    const span = (start: number) => ({ start, end: start + 4, text: points.slice(start, start + 4).join(""), weight: 0.5 });
    return {
      categories: { violence: { score: whole ? 0.8 : 0.3, flagged: whole }, hate: { score: text.length > 60 ? 0.4 : 0.1, flagged: false } },
      explanations: whole ? { violence: [span(find), span(hurt)] } : {},
    };
  };
  return { read, classify };
}

describe("combinedTextOf: the items the combined layer reads", () => {
  it("leaves out items with nothing to read, and is absent when fewer than two remain", () => {
    expect(combinedTextOf(items("and hurt you", ["   ", NO_TEXT]))).toBeUndefined();
    expect(combinedTextOf(items(["!!!", NO_TEXT], "and hurt you", ["   ", NO_TEXT]))).toBeUndefined();
    const combined = combinedTextOf(items("I will find you", ["   ", NO_TEXT], "and hurt you"));
    expect(combined?.text).toBe("I will find you\n\nand hurt you");
    expect(combined?.items).toEqual([{ index: 0, start: 0, end: 15, read: true }, { index: 2, start: 17, end: 29, read: true }]);
  });

  it("places items by code points, and marks one wholly in another language as unread", () => {
    const combined = combinedTextOf(items("😀😀 hi", ["Bonjour à tous", FRENCH], "𝐚𝐧𝐝 you"))!;
    expect(combined.items).toEqual([
      { index: 0, start: 0, end: 5, read: true },
      { index: 1, start: 7, end: 21, read: false },
      { index: 2, start: 23, end: 30, read: true },
    ]);
    expect(Array.from(combined.text).slice(23, 30).join("")).toBe("𝐚𝐧𝐝 you");
  });
});

describe("readCombined: the whole text and each pair of neighbours", () => {
  it("reads two items once, as the whole text", async () => {
    const model = splitThreatModel();
    const verdict = await readCombined(combinedTextOf(items("I will find you", "and hurt you"))!, model.classify);
    expect(model.read).toEqual(["I will find you\n\nand hurt you"]);
    expect(verdict.categories.violence).toEqual({ score: 0.8, flagged: true });
  });

  it("catches a threat split across two items that a third dilutes, with spans in the whole joined text", async () => {
    const model = splitThreatModel();
    const benign = "Hello everyone, how are you today? See you tomorrow, at the meeting.";
    const combined = combinedTextOf(items(benign, "I will find you", "and hurt you"))!;
    const verdict = await readCombined(combined, model.classify);
    // At most one more short pass per pair of neighbours.
    expect(model.read).toEqual([combined.text, `${benign}\n\nI will find you`, "I will find you\n\nand hurt you"]);
    expect(verdict.categories.violence).toEqual({ score: 0.8, flagged: true });
    const spans = verdict.explanations.violence!;
    expect(spans.map((s) => [s.start, s.end, s.text])).toEqual([[77, 81, "find"], [91, 95, "hurt"]]);
    for (const s of spans) expect(Array.from(combined.text).slice(s.start, s.end).join("")).toBe(s.text);
    // A category no pair flags keeps the higher score, here the whole text's.
    expect(verdict.categories.hate).toEqual({ score: 0.4, flagged: false });
  });

  it("pairs the readable items around one wholly in another language, and reports the layer as read in part", async () => {
    const model = splitThreatModel();
    const french = "Bonjour à tous, comment allez-vous aujourd'hui ? 😀 On se voit demain.";
    const combined = combinedTextOf(items("😀 I will find you", [french, FRENCH], "and hurt you"))!;
    const unread: Verdict = { categories: {}, explanations: {}, notEvaluated: FRENCH };
    const classify = (text: string) => (text === combined.text ? unread : model.classify(text));
    const verdict = await readCombined(combined, classify);
    expect(verdict.categories.violence).toEqual({ score: 0.8, flagged: true });
    expect(verdict.notEvaluated).toEqual({ reason: "partly_unsupported_language", language: "fr" });
    for (const s of verdict.explanations.violence!) expect(Array.from(combined.text).slice(s.start, s.end).join("")).toBe(s.text);
    expect(verdict.explanations.violence!.map((s) => s.text)).toEqual(["find", "hurt"]);
  });

  it("reads no pair longer than the model's window", async () => {
    // The shipped model file's window, and the one training writes into the next.
    expect(PAIR_READING_MAX_LENGTH).toBe(readModelHeader().window.size);
    expect(PAIR_READING_MAX_LENGTH).toBe(WINDOW.size);
    const model = splitThreatModel();
    const long = "a".repeat(PAIR_READING_MAX_LENGTH);
    await readCombined(combinedTextOf(items(long, "b", "c"))!, model.classify);
    expect(model.read).toEqual([`${long}\n\nb\n\nc`, "b\n\nc"]);
    // The compute pool's estimate of a job's work counts the same pairs (compute-pool.ts costOf).
    expect(pairReadingLengths([long, "b", "c"])).toEqual(model.read.slice(1).map((text) => text.length));
  });
});

describe("the trained model on a threat split across items, beside others", () => {
  const classifier = loadTrainedClassifier();
  const combinedOf = async (texts: string[]) => {
    const readings = await Promise.all(texts.map(async (text, index) => ({ index, text, notEvaluated: (await classifier.classify(text)).notEvaluated })));
    const combined = combinedTextOf(readings)!;
    return { combined, verdict: await readCombined(combined, (text) => classifier.classify(text)) };
  };

  // Found by an audit: the third item pushed the whole text's reading under the bar, and the
  // verdict depended on the items' order.
  it.each([
    ["a benign item after", ["I will find you", "and hurt you", "Hello everyone, how are you today? See you tomorrow."]],
    ["a benign item before", ["Hello everyone, how are you today? See you tomorrow.", "I will find you", "and hurt you"]],
    ["an item in French after", ["I will find you", "and hurt you", "Bonjour à tous, comment allez-vous aujourd hui ? On se voit demain."]],
    ["an item in French between", ["I will find you", "Bonjour à tous, comment allez-vous aujourd hui ? On se voit demain.", "and hurt you"]],
  ])("flags it with %s", async (_name, texts) => {
    const { combined, verdict } = await combinedOf(texts);
    expect(verdict.categories.harassment_threatening?.flagged).toBe(true);
    const spans = verdict.explanations.harassment_threatening!;
    expect(spans.map((s) => s.text)).toEqual(["find", "hurt"]);
    for (const s of spans) expect(Array.from(combined.text).slice(s.start, s.end).join("")).toBe(s.text);
  });
});
