import { describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import { buildCorpus } from "../../src/training/corpus.js";
import { CATEGORY_INDEX, example, makeLabels } from "../../src/training/datasets/example.js";
import { parseWordingRepairs, READER_INSULT, SELF_HARM_WORDING, withWordingUnknowns } from "../../src/training/wording-unknowns.js";

const H = CATEGORY_IDS.length;
const { self_harm, self_harm_intent, harassment, hate } = CATEGORY_INDEX;

/** Rows shaped as the readers make them: C-SSRS intent posts, Toxic Spans and CAD negatives. */
function corpusOf() {
  const examples = [
    example("reddit-cssrs-suicide", "Ideation", "I keep thinking about suicide every night and I am so tired.", makeLabels({ self_harm_intent: 1, hate: 0 }, "unknown")),
    example("reddit-cssrs-suicide", "Ideation", "Have you tried not taking it? When I was on medication the cure was stopping.", makeLabels({ self_harm_intent: 1, hate: 0 }, "unknown")),
    example("reddit-cssrs-suicide", "Supportive", "Hey man, if you need someone to talk to I am here for you.", makeLabels({ self_harm: 0, hate: 0 }, "unknown")),
    example("reddit-cssrs-suicide", "Supportive", "If you are thinking about suicide, please call a crisis line tonight.", makeLabels({ self_harm: 0, hate: 0 }, "unknown")),
    example("toxic-spans", "not_toxic", "Because you've met him? Shut up old fool.", makeLabels({ harassment: 0, hate: 0 }, "unknown")),
    example("toxic-spans", "not_toxic", "The council meets on Tuesday to talk about the new bridge.", makeLabels({ harassment: 0, hate: 0 }, "unknown")),
    example("cad-reddit-abuse", "neutral", "You're an idiot, mate, but I love you anyway.", makeLabels({ harassment: 0, hate: 0 }, "unknown")),
  ];
  const corpus = buildCorpus(examples, { hashing: { buckets: 1 << 12, minN: 3, maxN: 5 }, window: { size: 480, stride: 240 }, seed: 1, calibrationShare: 0, datasetCap: 100000 });
  return { corpus, examples, rows: Uint32Array.from({ length: corpus.rows }, (_, i) => i) };
}

describe("labels the text does not support, made unknown in training (wording-unknowns.ts)", () => {
  const { corpus, examples, rows } = corpusOf();
  const labelOf = (start: string, k: number, labels: Int8Array): number => {
    const r = [...rows].find((row) => examples[corpus.example[row]!]!.text.startsWith(start))!;
    return labels[r * H + k]!;
  };

  it("cssrs: an intent post without self-harm wording says nothing on self-harm; one naming suicide stays positive", () => {
    const { corpus: repaired, changed } = withWordingUnknowns(corpus, examples, rows, ["cssrs"]);
    expect(labelOf("Have you tried", self_harm, repaired.labels)).toBe(-1);
    expect(labelOf("Have you tried", self_harm_intent, repaired.labels)).toBe(-1);
    expect(labelOf("Have you tried", hate, repaired.labels)).toBe(0);
    expect(labelOf("I keep thinking", self_harm_intent, repaired.labels)).toBe(1);
    expect(labelOf("Hey man", self_harm, repaired.labels)).toBe(0);
    expect(changed).toEqual({ cssrs: 1 });
    // The corpus the evaluation reads keeps the source's label.
    expect(labelOf("Have you tried", self_harm_intent, corpus.labels)).toBe(1);
  });

  it("insults: a reader insult labelled harassment 0 becomes unknown, except in CAD (judged with the thread)", () => {
    const { corpus: repaired, changed } = withWordingUnknowns(corpus, examples, rows, ["insults"]);
    expect(labelOf("Because you've met him", harassment, repaired.labels)).toBe(-1);
    expect(labelOf("The council", harassment, repaired.labels)).toBe(0);
    expect(labelOf("You're an idiot", harassment, repaired.labels)).toBe(0);
    expect(changed).toEqual({ insults: 1 });
  });

  it("only the training rows given are repaired", () => {
    const { changed } = withWordingUnknowns(corpus, examples, new Uint32Array(0), ["cssrs", "insults"]);
    expect(changed).toEqual({ cssrs: 0, insults: 0 });
  });

  it("the wording it reads", () => {
    expect(SELF_HARM_WORDING.test("I just want to die")).toBe(true);
    expect(SELF_HARM_WORDING.test("I was so Depression I could not get up")).toBe(false);
    expect(READER_INSULT.test("you are such a pathetic loser")).toBe(true);
    expect(READER_INSULT.test("you are such a kind person")).toBe(false);
  });

  it("an unknown repair name is refused", () => {
    expect(() => parseWordingRepairs("cssrs,typos")).toThrow(/typos/);
    expect(parseWordingRepairs(undefined)).toEqual([]);
  });
});
