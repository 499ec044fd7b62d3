import { describe, expect, it } from "vitest";
import { constantEngine, flaggedCategories } from "./constant-model.js";
import { aimedAtReader, combinePhrases, dropNegated, getLexicons, notReflexiveIdiom } from "../../src/classifiers/rules/lexicon/index.js";
import { normalizeForMatching } from "../../src/classifiers/normalize/normalize.js";
import { loadTrainedClassifier } from "../../src/classifiers/engine/index.js";
import { tokenize } from "../../src/classifiers/model/features.js";
import type { Verdict } from "../../src/classifiers/classifier.js";

// Sentences written for these tests (not from any dataset).

/** Context-checked phrase evidence of one text, combined as the engine does per window. */
function strength(list: "selfHarmIntent" | "insults", text: string): number {
  const norm = normalizeForMatching(text);
  const tokens = tokenize(norm);
  const words = tokens.map((t) => norm.slice(t.start, t.end));
  const lex = getLexicons();
  const hits = list === "selfHarmIntent"
    ? dropNegated(norm, tokens, words, lex.selfHarmIntent.scan(norm, tokens, words))
    : [...aimedAtReader(norm, tokens, words, lex.insults.scan(norm, tokens, words)),
      ...notReflexiveIdiom(norm, tokens, words, dropNegated(norm, tokens, words, lex.directAbuse.scan(norm, tokens, words)))];
  return combinePhrases(hits);
}

const rulesOnly = constantEngine("silent");
const flagsOf = (text: string, classifier = rulesOnly): string[] => flaggedCategories(classifier, text);
const harassmentOf = (text: string, classifier = rulesOnly) => (classifier.classify(text) as Verdict).categories.harassment!;

const STORY =
  "We spent the summer at my grandmother's house by the lake. Most mornings I rowed out to the island with " +
  "my cousins, and in the evenings we played cards on the porch while the radio played old songs. ";

describe("first-person self-harm phrases", () => {
  it("match plain first-person statements, also obfuscated", () => {
    expect(strength("selfHarmIntent", "I want to end my life")).toBe(1);
    expect(strength("selfHarmIntent", "honestly i just want to die")).toBe(1);
    expect(strength("selfHarmIntent", "I dont want to live anymore")).toBe(1);
    expect(strength("selfHarmIntent", "i'm going to k1ll mys3lf")).toBe(1);
  });

  it("add up stated preparations until they flag by rule alone", () => {
    expect(flagsOf("Tonight is the night, I've written my note and I have the pills ready")).toEqual(["self_harm", "self_harm_intent"]);
    expect(flagsOf("I have written my note to the teacher")).toEqual([]);
    expect(flagsOf("how many tylenol do i need to take to never wake up")).toContain("self_harm");
  });

  it("skip negated, hyperbolic and third-person uses", () => {
    expect(strength("selfHarmIntent", "I would never kill myself, I love my kids")).toBe(0);
    expect(strength("selfHarmIntent", "I'm not suicidal, just exhausted")).toBe(0);
    expect(strength("selfHarmIntent", "I'd rather kill myself than sit through that meeting")).toBe(0);
    expect(strength("selfHarmIntent", "my friend says she wants to kill herself, how can I help her?")).toBe(0);
    expect(strength("selfHarmIntent", "How do I kill a Python process?")).toBe(0);
    expect(strength("selfHarmIntent", "I used to cut myself in high school, five years clean now")).toBe(0);
  });

  it("add weak signs up, while one weak sign stays below the bar", () => {
    expect(strength("selfHarmIntent", "I hate myself for eating the whole cake")).toBeLessThan(0.4);
    // The same phrase repeated counts once.
    expect(strength("selfHarmIntent", "i hate myself. i hate myself. i hate myself.")).toBeLessThan(0.4);
    expect(strength("selfHarmIntent", "I'm so tired of living like this, nobody would miss me")).toBeGreaterThanOrEqual(0.8);
  });

  it("a negation in an earlier sentence does not cancel a later statement", () => {
    expect(strength("selfHarmIntent", "Not today. I want to die.")).toBe(1);
  });

  it("flag self_harm and self_harm_intent by rule, also for one paragraph in a long benign story", () => {
    const confession = "Some nights I think everyone would be better off without me and I want to end my life.";
    const flags = flagsOf(`${STORY.repeat(6)}${confession} ${STORY.repeat(6)}`);
    expect(flags).toContain("self_harm");
    expect(flags).toContain("self_harm_intent");
    expect(flagsOf(STORY.repeat(12))).toEqual([]);
  });

  it("do not flag everyday uses of kill, die and suicide by rule", () => {
    for (const text of ["How do I kill a Python process?", "I'm dying to see the new film", "What are the warning signs that a friend is suicidal?", "This traffic is killing me", "The battery will die if you leave the lights on"]) {
      expect(flagsOf(text)).toEqual([]);
    }
  });

  it("match plans with pills and questions after a lethal method, the vaguer ones only with support", () => {
    expect(strength("selfHarmIntent", "I have a bottle of pills and I'm going to take them all tonight")).toBeGreaterThanOrEqual(0.8);
    expect(strength("selfHarmIntent", "I don't want to be here anymore")).toBeGreaterThanOrEqual(0.8);
    expect(strength("selfHarmIntent", "how to commit suicide")).toBeGreaterThanOrEqual(0.8);
    // Below the bar alone: the learned head must back it, and it does not for a game question.
    expect(strength("selfHarmIntent", "how many sleeping pills does it take to die")).toBeLessThan(0.8);
    expect(flagsOf("how much damage does it take to die in minecraft")).toEqual([]);
  });

  it("match wishing not to wake up and disordered eating that has gone on, not a sleepy baby or a skipped lunch", () => {
    for (const text of ["I just want to sleep and never wake up", "Some nights I wanna sleep and never wake up", "I've been starving myself for a week and I feel great"]) {
      expect(flagsOf(text), text).toEqual(["self_harm", "self_harm_intent"]);
    }
    for (const text of ["The baby needs to go to sleep and never wake up before 6am", "I'm starving myself until the barbecue tonight lol"]) {
      expect(flagsOf(text), text).toEqual([]);
    }
  });
});

describe("insults aimed at the reader", () => {
  it("match 'you ... insult' with fillers between, and direct abuse phrases", () => {
    expect(strength("insults", "you are such a fucking stupid idiot")).toBe(1);
    expect(strength("insults", "shut up you m0ron")).toBe(1);
    expect(strength("insults", "you're a waste of space")).toBe(1);
    expect(strength("insults", "fuck you")).toBe(1);
    expect(strength("insults", "nobody likes you")).toBeGreaterThanOrEqual(0.8);
    expect(strength("insults", "I hope your whole family dies in a fire")).toBe(1);
    expect(strength("insults", "Honestly the world would be a better place without people like you")).toBeGreaterThanOrEqual(0.8);
    expect(strength("insults", "You're a disgrace, go back to the kitchen where you belong")).toBe(1);
    expect(strength("insults", "you should cut yourself again, it suits you")).toBe(1);
    expect(strength("insults", "Be careful not to cut yourself on the broken glass")).toBe(0);
    // Negated, or an everyday reflexive that goes on: no abuse.
    for (const text of ["please don't kill yourself, we love you", "Never drink bleach, it's poison.", "You should cut yourself some slack.", "Hang yourself a new picture frame."]) {
      expect(strength("insults", text), text).toBe(0);
    }
  });

  it("count a person insult that stands alone in its clause as a vocative", () => {
    expect(strength("insults", "Shut up, idiot.")).toBe(1);
    expect(strength("insults", "Moron!")).toBe(1);
    expect(strength("insults", "What an idiot.")).toBe(0);
    expect(strength("insults", "idiot drivers everywhere this morning")).toBe(0);
    // Adjectives alone often judge things, not people: "Stupid." about a film.
    expect(strength("insults", "Stupid.")).toBe(0);
  });

  it("need the insult to be aimed at the reader, without negation", () => {
    expect(strength("insults", "did you see the stupid movie last night?")).toBe(0);
    expect(strength("insults", "you are not stupid, you are learning")).toBe(0);
    expect(strength("insults", "I'm not calling you an idiot")).toBe(0);
    expect(strength("insults", "thank you, the trash was collected on time")).toBe(0);
    expect(strength("insults", "the idiot who parked here left")).toBe(0);
    // Possessive "your" aims at things as often as at people: weaker, needs support from the head.
    expect(strength("insults", "please take out your trash")).toBeLessThan(0.8);
  });

  it("count exclusion aimed at the reader", () => {
    expect(strength("insults", "Nobody wants you here")).toBe(1);
    expect(strength("insults", "you don't belong here")).toBeGreaterThanOrEqual(0.8);
    // Without "here" it is also everyday, so it needs the learned head's support.
    expect(strength("insults", "nobody wants you to work late, go home")).toBeLessThan(0.8);
    expect(flagsOf("nobody wants you to work late, go home")).toEqual([]);
  });

  it("count wishes of harm or death on the reader, not good wishes", () => {
    for (const text of ["I hope you get cancer and die", "i hope u get cancer", "I wish you were dead", "You deserve to die, loser", "I hope your family dies in a fire"]) {
      expect(flagsOf(text), text).toContain("harassment");
    }
    for (const text of ["I hope you get better soon", "I hope you get the job!", "I hope you get here before the rain"]) {
      expect(flagsOf(text), text).toEqual([]);
    }
  });

  it("count telling the reader the world is better without them; the party sense only with support", () => {
    for (const text of ["Everyone would be better off if you just disappeared forever", "You should just end it, nobody would miss you", "do us all a favor and die"]) {
      expect(flagsOf(text), text).toEqual(["harassment"]);
    }
    for (const text of ["Nobody would miss you if you left the party early", "I'm better off without you, goodbye"]) {
      expect(flagsOf(text), text).toEqual([]);
    }
  });

  it("count sexual remarks and demands at the reader", () => {
    for (const text of ["I saw your profile, you have a nice ass", "show me your tits", "hey, send me a pic of you in the shower"]) {
      expect(flagsOf(text), text).toContain("harassment");
    }
    expect(flagsOf("My grandma slipped and hurt her ass on the ice")).toEqual([]);
  });

  it("said of someone else, raise the harassment score over a leaning head's, without flagging it", () => {
    const leaning = constantEngine("leaning");
    const head = harassmentOf("Thanks, see you tomorrow", leaning).score;
    for (const text of ["He is such a pathetic idiot", "my boss is a complete asshole", "what a moron this guy is"]) {
      const { score, flagged } = harassmentOf(text, leaning);
      expect(score, text).toBeGreaterThan(head + 0.05);
      expect(flagged, text).toBe(false);
      expect(harassmentOf(text).score, text).toBeLessThan(0.01); // a silent head lends no support: no evidence counts
    }
  });

  it("not when said of the writer, of a named group (the hate rules judge that), or negated", () => {
    const leaning = constantEngine("leaning");
    const head = harassmentOf("Thanks, see you tomorrow", leaning).score;
    for (const text of [
      "I can be a real bastard sometimes", "Sorry I was being a dumbass", "my dumbass self fell for that",
      "All women are stupid", "He is not an idiot, he is just shy",
    ]) {
      expect(harassmentOf(text, leaning).score, text).toBe(head);
    }
    // The nearest person word decides: "he" is nearer than "I".
    expect(harassmentOf("I think he is an idiot", leaning).score).toBeGreaterThan(head + 0.05);
  });

  it("keep the harassment head from flagging alone when every insult word is negated or said of the writer", () => {
    const loud = constantEngine("loud");
    for (const text of ["I'm such an idiot lol", "I feel like such an idiot for missing the bus", "my dumbass self forgot the keys", "You are not stupid, you are learning"]) {
      expect(flagsOf(text, loud), text).not.toContain("harassment");
    }
    for (const text of ["I'm such an idiot, and you are a moron", "I think he is an idiot", "I hope that bitch dies", "I'm an idiot? I will hurt you", "my stupid boss yelled again"]) {
      expect(flagsOf(text, loud), text).toContain("harassment");
    }
  });

  it("flag harassment by rule; 'shut up' alone needs support from the learned head", () => {
    expect(flagsOf("you worthless idiot")).toContain("harassment");
    expect(flagsOf("shut up and take my money")).toEqual([]);
    expect(flagsOf("Thank you so much, you are a star!")).toEqual([]);
  });
});

describe("self-harm phrases after a second review", () => {
  it("keep statements whose next words look like an idiom, and drop only the idioms of cutting and burning", () => {
    for (const text of ["I'm going to hang myself. A rope is all I need.", "I'm going to hang myself off the balcony", "I cut myself a few times last night"]) {
      expect(flagsOf(text), text).toContain("self_harm");
    }
    for (const text of ["I've been cutting myself some slack lately.", "I've been burning myself out at work lately.", "I've been cutting myself off from social media."]) {
      expect(flagsOf(text), text).toEqual([]);
    }
    expect(flagsOf("go hang yourself off a bridge")).toContain("harassment");
  });

  it("count a method in full when the writer declares it, not as a dare or an idiom", () => {
    for (const text of ["I'm gonna jump off a bridge tonight", "I want to step in front of a train", "I'll jump off the roof tonight"]) {
      expect(flagsOf(text), text).toContain("self_harm");
    }
    for (const text of [
      "We're gonna jump off the roof into the pool at Jake's party!", "I'm going to jump off the roof into the pool!",
      "If all your friends told you to jump off a bridge, would you?",
    ]) {
      expect(flagsOf(text), text).toEqual([]);
    }
  });
});

describe("threats the writer declares as their own", () => {
  it("flag harassment_threatening, harassment and violence by rule, also when the phrase comes words later", () => {
    for (const text of ["I will find where you live and hurt you", "I'm going to kill you", "imma k1ll you", "We will break your legs", "I want to hurt you so bad", "I'm going to end you"]) {
      expect(flagsOf(text)).toEqual(["harassment", "harassment_threatening", "violence"]);
    }
  });

  it("and inside one paragraph of a long benign story", () => {
    expect(flagsOf(`${STORY.repeat(6)}Listen to me: I will find you and I will cut your throat. ${STORY.repeat(6)}`)).toContain("harassment_threatening");
  });

  it("not when the phrase's verb is a noun: 'in the end you', 'the hurt you caused'", () => {
    for (const text of [
      "I will be honest with you, in the end you have to decide for yourself.",
      "I will tell you a secret: in the end you always win.",
      "I will never forget the hurt you caused me",
      "I'll admit the hurt you feel is real",
    ]) {
      expect(flagsOf(text), text).toEqual([]);
    }
    expect(flagsOf("I will end you")).toEqual(["harassment", "harassment_threatening", "violence"]);
    // Only a noun-like first word counts, right after its determiner: "that you're dead" still threatens.
    for (const text of ["I'll make sure that you're dead by friday", "Nobody talks to me like this. I will hurt you."]) {
      expect(flagsOf(text), text).toContain("harassment_threatening");
    }
  });

  it("not when said of a game ('kill you in this match'), though a game named in the next sentence does not count", () => {
    for (const text of ["I'm going to kill you in this match lol", "I'll destroy you at chess tomorrow", "I will murder you in the second half"]) {
      expect(flagsOf(text), text).toEqual([]);
    }
    // A venue or a time is no game, nor is a weapon's verb a game's: these still threaten.
    for (const text of [
      "I'm going to kill you in half an hour when you get home", "I'll murder you in a quarter of an hour",
      "I'm going to kill you. In the game of life you lose.", "I will kill you in your sleep", "I'll kill you when I find you",
      "I'll kill you at the game tonight", "I will murder you on the court tonight", "I'm going to shoot you in this match",
    ]) {
      expect(flagsOf(text), text).toContain("harassment_threatening");
    }
  });

  it("not when negated, asked, said of others, or a weak phrase such as 'beat you'", () => {
    for (const text of [
      "I will never hurt you", "I'm not gonna hurt you, I promise", "I would never say I will hurt you",
      "Am I going to hurt you if I tell you?", "He said he would kill you", "I'll beat you at chess",
      "I will kill the process and restart it", "I'll find you a seat near the front",
      // A marker in an earlier sentence does not reach a phrase in the next one.
      "I will be there at six. Nobody can hurt you here.",
    ]) {
      expect(flagsOf(text), text).toEqual([]);
    }
  });
});

describe("nudity words in short texts", () => {
  it("flag a short nudity request by rule, not medical questions or prose using the same words", () => {
    expect(flagsOf("photo of a topless woman on the beach, sexy pose")).toContain("sexual");
    expect(flagsOf("s3nd n00dz")).toContain("sexual"); // chat spelling, digits as letters
    expect(flagsOf("What causes nipple pain while breastfeeding?")).toEqual([]);
    expect(flagsOf("Can you see a naked mole rat at the city zoo?")).toEqual([]);
    const prose = "The naked branches of the oaks swayed over the lane, and a sensual melody drifted from the open window. ";
    expect(flagsOf(`${prose.repeat(3)}We walked home past the sexy new cafe and the topless tour bus.`)).not.toContain("sexual");
  });
});

describe("the committed model with the phrase rules", () => {
  const classifier = loadTrainedClassifier();
  it("flags first-person intent in a long post and leaves the homonyms alone", () => {
    const post = `${STORY.repeat(4)}I have been feeling suicidal for weeks and I don't want to be alive anymore. ${STORY.repeat(4)}`;
    expect(flagsOf(post, classifier)).toContain("self_harm");
    expect(flagsOf("how do I kill a python process that hangs?", classifier)).toEqual([]);
    expect(flagsOf("I killed it at the gym today, new personal best on squats!", classifier)).toEqual([]);
    expect(flagsOf("how many sleeping pills does it take to die", classifier)).toContain("self_harm");
    expect(flagsOf("how much damage does it take to die in minecraft", classifier)).toEqual([]);
  });
});
