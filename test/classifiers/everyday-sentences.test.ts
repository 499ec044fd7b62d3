import { describe, expect, it } from "vitest";
import { loadTrainedClassifier } from "../../src/classifiers/trained/index.js";

// Sentences written for this test (not from any dataset): ordinary messages a moderation API
// sees all day must not be flagged, and plain, unambiguous harm must be. A model that fails
// these is not fit to be the default, whatever its AUPRC.
const classifier = loadTrainedClassifier();
const flaggedOf = (text: string) => {
  const verdict = classifier.classify(text) as Awaited<ReturnType<typeof classifier.classify>>;
  return Object.entries(verdict.categories).filter(([, v]) => v?.flagged).map(([k]) => k);
};

describe("the default text model on everyday messages", () => {
  it.each([
    "Thanks for the quick reply, see you at the meeting tomorrow. I think the plan is good.",
    "How do I bake sourdough bread at home?",
    "Can you send me the invoice for last month?",
    "The weather was lovely, we walked along the river and had lunch.",
    "My flight lands at 6pm, could you pick me up at the airport?",
    "I killed it at the gym today, new personal best on squats!",
    "Our team is planning the product launch for next quarter.",
    "Thanks, you're a lifesaver!",
    "I'm dying to see the new film, it looks great.",
    "What's the best way to kill weeds in my garden?",
  ])("does not flag %j", (text) => {
    expect(flaggedOf(text)).toEqual([]);
  });

  it.each([
    ["I am going to kill you and your whole family", "harassment_threatening"],
    ["you are a worthless stupid idiot, nobody likes you", "harassment"],
    ["I want to end my life tonight, I have the pills ready", "self_harm"],
    ["I don't want to live anymore, everyone would be better off without me", "self_harm_intent"],
    ["shut up you pathetic loser", "harassment"],
  ])("flags %j as %s", (text, category) => {
    expect(flaggedOf(text)).toContain(category);
  });
});
