import { describe, expect, it } from "vitest";
import type { Verdict } from "../../src/classifiers/classifier.js";
import { loadTrainedClassifier } from "../../src/classifiers/engine/index.js";
import { FUNCTION_WORDS } from "../../src/classifiers/engine/function-words.js";
import { chooseSpans, type TokenKind } from "../../src/classifiers/engine/span-choice.js";
import { readModelHeader } from "../../src/classifiers/model/model-file.js";
import { applyPolicy, compilePolicy } from "../../src/policies/apply-policy.js";

// Sentences written for these tests (not from any dataset).
const classifier = loadTrainedClassifier();
const spansOf = (text: string, category: keyof Verdict["categories"]): string[] => {
  const v = classifier.classify(text) as Verdict;
  expect(v.categories[category]?.flagged, `${category} flags "${text}"`).toBe(true);
  return (v.explanations[category] ?? []).map((s) => s.text.toLowerCase());
};
const FILLER = ["you", "and", "her", "i", "will", "to", "a", "are", "those", "should", "going"];

describe("explanations point at the harm, not at filler", () => {
  it.each([
    ["a threat", "I will find you and hurt you", "harassment_threatening", ["hurt"]],
    ["a threat", "I'm going to kill you tomorrow", "violence", ["kill"]],
    ["an insult", "you are a worthless pathetic idiot", "harassment", ["worthless", "pathetic", "idiot"]],
    ["a slur", "all those niggers should leave", "hate", ["niggers"]],
    ["a self-harm statement", "I want to end my life tonight", "self_harm", ["end", "life"]],
  ] as const)("%s: %s", (_kind, text, category, harm) => {
    const spans = spansOf(text, category);
    for (const word of harm) expect(spans).toContain(word);
    for (const word of FILLER) expect(spans).not.toContain(word);
    // A function word only inside a rule's phrase ("end my life"), never at its edge or alone.
    expect(spans.filter((span) => FUNCTION_WORDS.has(span)).length).toBeLessThanOrEqual(spans.length === 3 ? 1 : 0);
  });

  it("the threat's spans are exactly its verbs of harm", () => {
    expect(spansOf("I will find you and hurt you", "harassment_threatening")).toEqual(["find", "hurt"]);
    expect(spansOf("you are a worthless pathetic idiot", "harassment")).toEqual(["worthless", "pathetic", "idiot"]);
  });

  it("words the head leans on weakly ('lol', 'hope') are not spans beside the harm", () => {
    expect(spansOf("lol you are such a pathetic loser", "harassment")).toEqual(["pathetic", "loser"]);
    // "cry" may join "clown" (the taunt "go cry"; 2026-11-i leans on it, 2026-11-h did not); the
    // filler around them may not.
    const taunt = spansOf("lol okay you absolute clown, go cry", "harassment");
    expect(taunt).toContain("clown");
    for (const filler of ["lol", "okay", "you", "absolute", "go"]) expect(taunt).not.toContain(filler);
    // "hope" may join "assassinated": here it is the wish that makes the sentence violence, and
    // 2026-11-k leans on it at about 0.45 of "assassinated"'s weight (2026-11-i under the 0.35
    // share; CAD's Reddit wishes now count in full); the words around them may not.
    const wish = spansOf("Let's hope they get assassinated soon.", "violence");
    expect(wish).toContain("assassinated");
    for (const filler of ["Let's", "they", "get", "soon"]) expect(wish).not.toContain(filler);
  });

  it("spans come from the harmful sentence, not a benign one beside it", () => {
    // Each benign sentence held a word the head leans on a little ("finally", "Happy", "training"),
    // and it outranked the harm's own words.
    const cases = [
      ["I finally finished reading that novel you recommended, and the ending surprised me. I know where you live and I'm going to stab you.", "harassment_threatening", 84],
      ["Happy birthday to my wonderful grandmother who turns ninety today! I'm going to kill myself tonight, I have the pills ready.", "self_harm_intent", 67],
      ["My daughter just learned to ride her bike without training wheels! I'll slit your throat.", "violence", 67],
    ] as const;
    for (const [text, category, harmFrom] of cases) {
      const spans = (classifier.classify(text) as Verdict).explanations[category] ?? [];
      expect(spans.length, text).toBeGreaterThan(0);
      for (const span of spans) expect(span.start, `${span.text} in "${text}"`).toBeGreaterThanOrEqual(harmFrom);
    }
  });

  it("an emoji is no span beside words (the head learned some from Hatemoji's hateful rows)", () => {
    // The words after the emoji, never the emoji (`2026-12-c` also credits "anyway", a word of the harm's sentence).
    const spans = spansOf("🎉🎉🎉🎉🎉🎉🎉🎉 happy birthday!! 🎂 anyway I hope you die", "harassment");
    expect(spans).toEqual(expect.arrayContaining(["hope", "die"]));
    expect(spans.filter((span) => /\p{Extended_Pictographic}/u.test(span) || ["happy", "birthday"].includes(span))).toEqual([]);
    expect(spansOf("🔪🔪 I will murder you 🔪🔪", "violence")).toEqual(["murder"]);
  });

  it("a phrase's content words come before the function words inside it", () => {
    expect(spansOf("yeah well I hope you die in a fire", "harassment")).toEqual(["hope", "die", "fire"]);
  });

  it("a function word inside a phrase is no span beside two content words (it had outweighed them)", () => {
    // Found by an audit (session 40): "you" weighed 2.17 against "die" 1.00, "your" 3.11 against "tits" 1.92.
    expect(spansOf("I hope you die", "harassment")).toEqual(["hope", "die"]);
    expect(spansOf("watch your back", "harassment_threatening")).toEqual(["watch", "back"]);
    expect(spansOf("I'm going to beat the crap out of you", "violence")).toEqual(["beat", "crap"]);
    const sexualRequest = spansOf("show me your tits", "harassment");
    expect(sexualRequest).toContain("tits");
    expect(sexualRequest).not.toContain("your");
    // "until" is a conjunction, no span of a graphic killing.
    expect(spansOf("He smashed her skull with a hammer until her brains spilled out on the floor", "violence")).not.toContain("until");
  });

  it("a threat beside an insult is explained by the threat (the insult had been its only span)", () => {
    for (const text of ["I will kill you, you idiot", "you idiot, I will kill you"]) {
      const threat = spansOf(text, "harassment_threatening");
      expect(threat).toContain("kill");
      expect(threat).not.toContain("idiot");
      // Harassment, flagged by the same rule, shows the threat beside the insult.
      expect(spansOf(text, "harassment")).toEqual(expect.arrayContaining(["kill", "idiot"]));
    }
  });

  it("hate is explained by what is said of a group, not by the group's name", () => {
    const hate = spansOf("I hate black people.", "hate");
    expect(hate).toContain("hate");
    expect(hate).not.toContain("black");
    expect(hate).not.toContain("people");
    expect(spansOf("Muslims are just so disgusting", "hate")).toEqual(["disgusting"]);
    // Inside a dehumanising claim's phrase the group is part of the claim.
    expect(spansOf("Black people are a cancer.", "hate")).toEqual(expect.arrayContaining(["black", "cancer"]));
  });

  it("an emoji that carries the threat is its span", () => {
    for (const category of ["hate", "violence"] as const) {
      const spans = spansOf("I want to 🔪 all women", category);
      expect(spans).toContain("🔪");
      expect(spans).not.toContain("women");
    }
  });

  it("a decorative emoji stays filler beside a rule's phrase, however much the head weighs it", () => {
    // 🎉 0, "happy" 1, "hope" 2, "you" 3, "die" 4 (the phrase "hope you die" is the rule's).
    const kinds: TokenKind[] = ["pictograph", "word", "word", "filler", "word"];
    const chosen = chooseSpans(Float64Array.of(9, 0.3, 1, 2.2, 1.4), kinds, Uint8Array.of(0, 0, 1, 1, 1), Uint8Array.of(0, 0, 0, 1, 0));
    expect(chosen.sort()).toEqual([2, 4]);
    // Without a rule's phrase, the emoji outweighing every word is the span.
    expect(chooseSpans(Float64Array.of(9, 0.3, 1, 2.2, 1.4), kinds, new Uint8Array(5), new Uint8Array(5))).toEqual([0]);
  });

  it("a category a policy's threshold flags is explained too, and only when a policy asks", () => {
    const text = "you are kind of a dummy, honestly";
    const policy = compilePolicy({ id: "p", version: 1, thresholds: { harassment: 0.2 }, blockList: [], allowList: [] });
    const plain = classifier.classify(text) as Verdict;
    expect(plain.categories.harassment?.flagged).toBe(false);
    expect(plain.explanations.harassment).toBeUndefined();
    const asked = classifier.classify(text, undefined, policy.classifyOptions) as Verdict;
    expect(asked.categories).toEqual(plain.categories);
    const applied = applyPolicy(asked, text, policy, { bars: readModelHeader().thresholds });
    expect(applied.categories.harassment?.flagged).toBe(true);
    expect(applied.explanations.harassment?.map((s) => s.text)).toEqual(["dummy"]);
  });
});
