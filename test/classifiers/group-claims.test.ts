import { describe, expect, it } from "vitest";
import { constantEngine, flaggedCategories } from "./constant-model.js";
import type { Verdict } from "../../src/classifiers/classifier.js";
import { loadTrainedClassifier } from "../../src/classifiers/engine/index.js";

// Sentences written for these tests (not from any dataset).

const quiet = constantEngine("silent");
const flagsOf = (text: string, classifier = quiet): string[] => flaggedCategories(classifier, text).sort();

describe("dehumanising claims about a group (rule alone)", () => {
  it("flag a group named as the subject of a dehumanising predicate", () => {
    expect(flagsOf("Immigrants are vermin and should be deported")).toContain("hate");
    expect(flagsOf("Trans people are nothing but parasites.")).toContain("hate");
    expect(flagsOf("muslims are no better than animals")).toContain("hate");
    expect(flagsOf("Honestly, women are all just filthy animals")).toContain("hate");
    // Criminalising a whole group, and confining it to a place.
    expect(flagsOf("Mexicans are all rapists and drug dealers")).toContain("hate");
    expect(flagsOf("Gay people are pedophiles")).toContain("hate");
    expect(flagsOf("Women belong in the kitchen, not in parliament")).toContain("hate");
    // A negated quantifier that does not quantify the group negates nothing.
    expect(flagsOf("It's not all that surprising that Mexicans are rapists")).toContain("hate");
  });

  it("flag calls for a group's extermination as hate_threatening too", () => {
    expect(flagsOf("Gay people should be exterminated")).toEqual(["hate", "hate_threatening"]);
    expect(flagsOf("Jews deserve to die.")).toEqual(["hate", "hate_threatening"]);
    expect(flagsOf("Gays should be thrown off buildings")).toEqual(["hate", "hate_threatening"]);
    expect(flagsOf("Refugees are vermin")).not.toContain("hate_threatening");
  });

  it("do not flag negated, rejected, questioned or non-group statements", () => {
    expect(flagsOf("Immigrants are not vermin")).toEqual([]);
    expect(flagsOf("I don't think women are animals")).toEqual([]);
    expect(flagsOf("Saying immigrants are vermin is disgusting")).toEqual([]);
    expect(flagsOf("Why are immigrants called vermin?")).toEqual([]);
    expect(flagsOf("Rats are vermin")).toEqual([]);
    expect(flagsOf("My neighbours' cats are animals")).toEqual([]);
    expect(flagsOf("Immigrants are welcome here, and rats are vermin")).toEqual([]);
    expect(flagsOf("Not all Muslims are terrorists")).toEqual([]);
    expect(flagsOf("not all of the immigrants are criminals")).toEqual([]);
    expect(flagsOf("Muslims are victims of terrorists too")).toEqual([]);
  });

  it("flag conspiracy tropes said of a group, linked without a copula", () => {
    expect(flagsOf("Jews control the media and the banks")).toContain("hate");
    expect(flagsOf("Immigrants are replacing us")).toContain("hate");
    // Not negated, asked, condemned, said of no protected group, or a praise that needs the head.
    for (const text of ["Jews do not control the media", "Do Jews control the media?", "Saying Jews control the media is an antisemitic lie", "The government controls the media", "Women run the world"]) {
      expect(flagsOf(text), text).toEqual([]);
    }
  });

  it("need the hate head's support for the weaker predicates", () => {
    // "should be deported" is a political position as well as hate: not enough on its own.
    expect(flagsOf("Illegal immigrants should be deported")).toEqual([]);
  });

  it("explain the flag by the group and predicate", () => {
    const spans = (quiet.classify("Immigrants are vermin") as Verdict).explanations.hate ?? [];
    // The group and the predicate; "are" between them is no span beside two content words.
    expect(spans.map((s) => s.text)).toEqual(["Immigrants", "vermin"]);
  });
});

describe("contempt and denied rights said of a group (session 9), and groups that are objects", () => {
  it("flag contempt, denied capacity and denied votes said of a group", () => {
    for (const text of ["Women are too stupid to vote.", "Gay people are disgusting", "Women shouldn't be allowed to vote", "Jews are behind every war"]) {
      expect(flagsOf(text), text).toContain("hate");
    }
  });

  it("not when the group is an object: after a preposition or inside a relative clause (counter-speech)", () => {
    for (const text of [
      "Jokes about Muslims are stupid.", "Attacks on Jews are disgusting.", "Laws against gays are evil.",
      "Trolls who harass women are disgusting.", "People who say Muslims are dumb are idiots.",
      "Men who hurt women shouldn't be allowed near children.",
    ]) {
      expect(flagsOf(text), text).not.toContain("hate");
    }
    // "of" does not make an object: "half of Muslims are ..." is still a claim about them.
    expect(flagsOf("Half of Muslims are terrorists")).toContain("hate");
  });

  it("take disbelief as negation, but not the 'you can't say X anymore' trope", () => {
    expect(flagsOf("You can't seriously believe that all women are stupid.")).not.toContain("hate");
    expect(flagsOf("Nowadays you cannot say Muslims are savages without getting banned.")).toContain("hate");
    expect(flagsOf("You can't honestly think women are stupid.")).not.toContain("hate");
    // A "who" that opens the clause asks; it makes no relative clause.
    expect(flagsOf("Who cares gays are freaks anyway")).toContain("hate");
  });
});

describe("dehumanising claims with the shipped model", () => {
  const shipped = loadTrainedClassifier();
  it("flag the plain statement and keep the negated and rejected ones unflagged", () => {
    expect(flagsOf("Immigrants are vermin and should be deported", shipped)).toContain("hate");
    expect(flagsOf("Immigrants are not vermin", shipped)).not.toContain("hate");
    expect(flagsOf("Saying immigrants are vermin is disgusting", shipped)).not.toContain("hate");
    expect(flagsOf("My neighbours' cats are animals", shipped)).toEqual([]);
  });
});
