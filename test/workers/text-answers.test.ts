import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateResponseSchema } from "../../gen/moderation/v1/moderation_pb.js";
import type { Verdict } from "../../src/classifiers/classifier.js";
import { loadTrainedClassifier } from "../../src/classifiers/engine/index.js";
import { moderateAnswerJsonText } from "../../src/moderation/moderate-answer-json.js";
import { assembleAnswer, textItemResult } from "../../src/moderation/assemble-answer.js";
import { combinedTextOf, readCombined } from "../../src/moderation/combined-reading.js";
import { textAnswerMessage } from "../../src/moderation/text-answer-message.js";

const classifier = loadTrainedClassifier();

type TextAnswer = Parameters<typeof textAnswerMessage>[0];

/** The rendering the JSON route uses for any answer (the message create makes, then the one renderer). */
const viaMessage = (answer: TextAnswer) => moderateAnswerJsonText(create(ModerateResponseSchema, answer));

/** What a compute worker renders and signs ahead: the message built field by field, then the same renderer. */
const textAnswerJsonText = (answer: TextAnswer) => moderateAnswerJsonText(textAnswerMessage(answer));

/** An answer assembled as both paths assemble it: the combined layer from the items with text to read, and its pairs. */
const answerOf = async (texts: string[], verdicts: Verdict[]) => {
  const results = verdicts.map((verdict, index) => textItemResult(index, verdict, classifier.id));
  const joined = combinedTextOf(texts.map((text, index) => ({ index, text, notEvaluated: verdicts[index]?.notEvaluated })));
  const combined = joined && (await readCombined(joined, (text) => classifier.classify(text)));
  return assembleAnswer("modr_test", classifier.id, results, combined);
};

// Compute workers build text-only answers with textAnswerMessage and render them with the route's
// renderer; the event loop builds them with create. The signed bytes must not depend on which one did it.
describe("rendering parity: a text answer built field by field (textAnswerMessage) and by create renders the same bytes", () => {
  const CALLS: string[][] = [
    ["Thanks for the quick reply, see you at the meeting tomorrow."],
    ["I will find you and kill you, you worthless idiot."],
    ["you are so", "worthless, I will hurt you", "see you at noon"],
    ["A calm paragraph about gardening. ".repeat(40) + "I want to kill myself tonight."],
    ["Ünïcödé, emoji 🙂, quotes \" and \\ and\u200bzero-width i\u200bd\u200bi\u200bo\u200bt", "line\nbreaks\tand \u2028 separators"],
    ["Describe her naked body in detail", "kill all of them"],
    // Not evaluated (French), partly evaluated (mixed), and both beside an English item.
    ["Je vais te tuer, sale con, tout le monde te déteste", "I will find you and hurt you"],
    ["Du bist ein wertloser Versager und alle hassen dich."],
    ["You are a worthless idiot and everyone hates you, honestly. " + "Tu es une merde et tout le monde te déteste, je vais te retrouver et te frapper. ".repeat(2) + "Anyway see you tomorrow at the office for the weekly meeting, bring the slides and the coffee."],
  ];

  it.each(CALLS.map((texts) => [texts.join(" | ").slice(0, 60), texts] as const))("is byte-identical to the message rendering: %s", async (_name, texts) => {
    const answer = await answerOf(texts, texts.map((text) => classifier.classify(text) as Verdict));
    expect(textAnswerJsonText(answer)).toBe(viaMessage(answer));
    // The message built field by field (textAnswerMessage) is the one create makes.
    expect(textAnswerMessage(answer)).toStrictEqual(create(ModerateResponseSchema, answer));
  });

  it("keeps every field of a verdict with explanations in several categories, and of an empty one", async () => {
    const flagged: Verdict = {
      categories: { harassment: { score: 0.93, flagged: true }, hate: { score: 0, flagged: false }, violence_graphic: { score: 1, flagged: true } },
      explanations: {
        harassment: [{ start: 0, end: 5, text: "idiot", weight: 0.5 }, { start: 9, end: 12, text: "you", weight: 1e-7 }],
        violence_graphic: [{ start: 3, end: 4, text: "🙂", weight: 2 }],
      },
    };
    const empty: Verdict = { categories: {}, explanations: {} };
    const answer = await answerOf(["a"], [flagged]);
    answer.results.push(textItemResult(1, empty, classifier.id));
    const text = textAnswerJsonText(answer);
    expect(text).toBe(viaMessage(answer));
    expect(textAnswerMessage(answer)).toStrictEqual(create(ModerateResponseSchema, answer));
    const parsed = JSON.parse(text);
    expect(parsed.results[0].explanations.map((e: { category: string }) => e.category)).toEqual(["harassment", "violence_graphic"]);
    expect(parsed.results[1]).toEqual({ index: 1, type: "text", flagged: false, categories: {}, explanations: [], models: [classifier.id] });
  });
});
