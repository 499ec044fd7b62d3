import { describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import type { TextClassifier, Verdict } from "../../src/classifiers/classifier.js";
import { withLanguageGate } from "../../src/classifiers/language/language-gate.js";
import { readLanguage, UNDETERMINED } from "../../src/classifiers/language/read-language.js";
import { constantEngine } from "./constant-model.js";

// Sentences written for these tests (not from any dataset).
const EN = new Set(["en"]);

const FRENCH = "Je vais te retrouver ce soir et tu vas le regretter, tout le monde te déteste.";
const SPANISH = "Quiero morir esta noche, ya no aguanto más esta vida.";
const GERMAN = "Ich will nicht mehr leben, alles ist sinnlos geworden.";
const ARABIC = "سأجدك الليلة وستندم على ذلك";
const MIXED = "Thanks for the lovely dinner yesterday, it was great to see everyone again and the food was amazing. " +
  "Mais je vais te retrouver ce soir et tu vas le regretter.";

describe("language reading", () => {
  it.each([[FRENCH, "fr"], [SPANISH, "es"], [GERMAN, "de"], [ARABIC, "ar"], ["Я тебя убью", "ru"]])("reads %s as %s, wholly uncovered", (text, language) => {
    expect(readLanguage(text, EN)).toEqual({ language, uncovered: { language, share: 1 } });
  });

  it("reads English, also short, slang and obfuscated, as covered", () => {
    for (const text of ["I will find you and hurt you", "you worthless idiot", "Ur mom is a hoe", "wtf is wrong with u", "k1ll urself", "I want to end my life"]) {
      expect(readLanguage(text, EN).uncovered, text).toBeUndefined();
    }
    // Cyrillic look-alikes do not make English "Russian": the model reads the folded letters.
    expect(readLanguage("уоu аrе а wоrthlеss іdіоt аnd І wіll kіll уоu", EN).uncovered).toBeUndefined();
  });

  it("says undetermined where nothing can be told, and evaluates", () => {
    for (const text of ["kys", "lol ok", "🙂🙂🙂", "1234", ""]) expect(readLanguage(text, EN)).toEqual({ language: UNDETERMINED });
  });

  it("reads mixed text by its parts: English with a French part is partly uncovered", () => {
    const reading = readLanguage(MIXED, EN);
    expect(reading.language).toBe("en");
    expect(reading.uncovered?.language).toBe("fr");
    expect(reading.uncovered!.share).toBeGreaterThan(0.2);
    expect(reading.uncovered!.share).toBeLessThan(0.5);
  });

  it("reads a short English lead-in and what follows it apart, so the lead-in cannot cover the rest", () => {
    const reading = readLanguage("Thanks for the update, see you tomorrow. Je vais te tuer ce soir, sale connard, tu vas mourir", EN);
    expect(reading.uncovered?.language).toBe("fr");
    expect(reading.uncovered!.share).toBeGreaterThan(0.5);
    // A short sentence alone is too little to tell a language by: it joins its neighbour.
    expect(readLanguage("Ok. I will find you and hurt you, and nobody will help you then.", EN).uncovered).toBeUndefined();
    expect(readLanguage("I will find you and hurt you, and nobody will help you then. Ciao!", EN).uncovered).toBeUndefined();
  });

  // Found by an audit (session 40): the short English sentence joined to the foreign one made the
  // pair read as English, scored near 0 and reported as evaluated.
  it("reads a foreign sentence apart from the short English sentence joined to it", () => {
    for (const [text, language] of [
      ["Je vais te tuer ce soir. See you all then.", "fr"],
      ["Hello everyone, good morning. Je vais te tuer ce soir. See you all then.", "fr"],
      ["Voy a matarte esta noche. Have a nice day.", "es"],
      ["I love this place. Je vais te tuer demain soir sale con.", "fr"],
      // Chat often has no final stop (a review's finding).
      ["I will find you. Je vais te tuer ce soir", "fr"],
    ]) expect(readLanguage(text!, EN).uncovered?.language, text).toBe(language);
  });

  // Found by an audit (session 48): a foreign clause after an English one and a comma was read
  // with it, as English, and scored.
  it("reads a clause in another language apart from the English one before its comma", () => {
    for (const [text, language] of [
      ["Nice to see you, te voy a matar esta noche cabrón", "es"],
      ["You know what, ich bringe dich heute Nacht um", "de"],
      ["Honestly, my friend, je vais te tuer ce soir", "fr"],
    ]) expect(readLanguage(text!, EN).uncovered?.language, text).toBe(language);
    // English clauses stay English, whatever their commas.
    for (const text of ["I will kill you, you idiot, and then I'll go home", "Well, honestly, I think so, yes, but maybe not today, my friend", "Paris, Texas: a film by Wim Wenders, with Nastassja Kinski"]) {
      expect(readLanguage(text, EN).uncovered, text).toBeUndefined();
    }
  });

  // Left by session 48's fix, measured in session 51 (bench:languages, "run on with no comma": 84
  // of 308 missed before, 55 after): a foreign clause run on from English words with no comma.
  it("reads a clause in another language run on from English words with no comma between", () => {
    for (const [text, language] of [
      ["I swear te voy a matar si vuelves a llamar", "es"],
      ["honestly bro je vais te tuer ce soir", "fr"],
    ]) expect(readLanguage(text!, EN).uncovered?.language, text).toBe(language);
    // English with foreign words or names in it stays English.
    for (const text of ["my abuela always says te quiero mucho before bed", "I said je ne sais quoi to him and he laughed", "Je suis Charlie was everywhere that week", "we went to the bar and ordered dos cervezas por favor"]) {
      expect(readLanguage(text, EN).uncovered, text).toBeUndefined();
    }
  });

  // Found by an audit (session 51): ELD has no table for Hindi in Latin letters, read as undetermined
  // and scored as English ("I want to end my life, I want to die": self_harm_intent 0, unflagged).
  it("reads Hindi in Latin letters by its function words where the n-grams are unsure", () => {
    for (const text of ["mujhe apni zindagi khatam karni hai, main marna chahta hoon", "tujhe maar dunga kutte, tera kya hoga"]) {
      expect(readLanguage(text, EN).uncovered?.language, text).toBe("hi-Latn");
    }
    // English slang spelt alike stays English.
    for (const text of ["yeh I know right, woh there buddy, that is hilarious", "Hai everyone, thanks for the tip about the mein noodles"]) {
      expect(readLanguage(text, EN).uncovered, text).toBeUndefined();
    }
  });

  // Session 52: Russian and Arabic (Arabizi) in Latin letters were undetermined too, so scored as
  // English ("I will kill you tonight" unflagged).
  it("reads Russian and Arabic in Latin letters by their function words where the n-grams are unsure", () => {
    for (const [text, language] of [
      ["Ya tebya ubyu segodnya nochyu, suka.", "ru-Latn"],
      ["Ya bolshe ne hochu zhit, vse nadoelo.", "ru-Latn"],
      ["Enta msh rajel, hamawtak el leila.", "ar-Latn"],
      ["Ehna lazem nekhlas menhom kolohom.", "ar-Latn"],
    ]) expect(readLanguage(text!, EN).uncovered?.language, text).toBe(language);
    // English with a Russian or Arabic word or name in it stays English.
    for (const text of ["My friend Moya said the kak joke was funny", "pro ana accounts keep telling her to stop eating", "we did hatha yoga and then had shawarma with Ahmed", "Mish and Elli went to the game"]) {
      expect(readLanguage(text, EN).uncovered, text).toBeUndefined();
    }
  });

  // Found in session 51: Korean writes most words in two syllables, so no word of the run made it
  // stand alone, and the whole was read as English; folded to jamo, it read as English again.
  it("reads Korean after a short English lead-in as Korean", () => {
    expect(readLanguage("and then 오늘 밤 너를 죽일 거야", EN).uncovered?.language).toBe("ko");
    expect(readLanguage("honestly bro 오늘 밤 너를 죽일 거야", EN).uncovered?.language).toBe("ko");
    expect(readLanguage("let α, β, γ be angles", EN).uncovered).toBeUndefined();
  });

  // Found by an audit (session 48): too short for the detector to be sure, they were "und" and scored as English.
  it("reads short text wholly in a script with no Latin look-alike as not covered, however short", () => {
    for (const text of ["死ね", "殺す", "去死吧", "قتل", "मरो", "死"]) expect(readLanguage(text, EN), text).toEqual({ language: "und", uncovered: { language: "und", share: 1 } });
    // Short Cyrillic or Greek may be look-alike English ("уоu іdіоt"), and English with a short
    // word of another script is English.
    for (const text of ["уоu іdіоt", "α", "I love 寿司 so much"]) expect(readLanguage(text, EN).uncovered, text).toBeUndefined();
    // A model that covers a language of such a script reads it: the rule is for Latin-script models.
    expect(readLanguage("死ね", new Set(["en", "ja"])).uncovered).toBeUndefined();
  });

  it("reads full-width and styled Latin letters as the letters they are", () => {
    // "ｙｏｕ ｓｔｕｐｉｄ ｉｄｉｏｔ" was read as Japanese (audit, session 40): only the model's flags were kept.
    for (const text of ["ｙｏｕ ｓｔｕｐｉｄ ｉｄｉｏｔ", "𝐲𝐨𝐮 𝐚𝐫𝐞 𝐚 𝐬𝐭𝐮𝐩𝐢𝐝 𝐢𝐝𝐢𝐨𝐭"]) expect(readLanguage(text, EN), text).toEqual({ language: "en" });
    expect(readLanguage("ﾜﾀｼﾊ ｺﾛｽ", EN).uncovered?.language).toBe("ja");
  });

  // Found by a fuzzing pass (session 32): each was read as English, scored and not flagged.
  it("reads a short text's foreign sentence on its own", () => {
    expect(readLanguage("Thanks, see you tomorrow. Je vais te tuer ce soir", EN).uncovered?.language).toBe("fr");
    expect(readLanguage("Hello my dear friend, how are you doing today? 我今晚要杀了你，你这个混蛋", EN).uncovered?.language).toBe("zh");
    expect(readLanguage("Thanks, see you tomorrow. سأقتلك الليلة", EN).uncovered?.language).toBe("ar");
  });

  it("reads a word of another script whole, marks and all, but not single letters in English", () => {
    expect(readLanguage("ok see you later, मैं तुम्हें आज रात मार दूंगा", EN).uncovered).toBeDefined();
    expect(readLanguage("Hi there. ཁྱེད་རང་ལ་གསོད་རྒྱུ་ཡིན།", EN).uncovered?.language).toBe(UNDETERMINED);
    expect(readLanguage("Let α, β, γ be the angles of the triangle, as usual.", EN).uncovered).toBeUndefined();
  });

  it("cuts text with no sentence end between words: a word cut in two is no other language", () => {
    // "stupid " 40 times was cut every 60 characters, mid-word, and "pid stupid ..." read as Slovak.
    for (const word of ["stupid", "idiot", "loser", "worthless"]) expect(readLanguage(`${word} `.repeat(40), EN).uncovered, word).toBeUndefined();
  });

  it("reads at most 160 pieces of a text of alternating scripts, still all of it", () => {
    const reading = readLanguage("我喜欢 ok yes ".repeat(1000).slice(0, 10_000), EN);
    expect(reading.uncovered?.language).toBe("zh");
  });

  it("reads every sentence of a long text, not a sample of them", () => {
    const english = "The weather today is quite pleasant and warm. ";
    for (const at of [0, 30, 50, 51, 99]) {
      const sentences = Array.from({ length: 100 }, (_, i) => (i === at ? "Je vais te tuer ce soir avec un couteau, salope. " : english));
      expect(readLanguage(sentences.join(""), EN).uncovered?.language, `French sentence at ${at}`).toBe("fr");
    }
  });

  it("reads short French or Spanish typed without accents by its function words, though English scores close behind", () => {
    // ELD alone: fr 0.73 with en 0.54, es 0.70 with en 0.50, which read as English (and were
    // scored, "safe"); "Je vais te tuer" was Croatian and "Je te deteste..." Romanian.
    for (const [text, language] of [
      ["Mais je vais te tuer demain matin, sale con.", "fr"],
      ["Voy a matarte manana, cabron de mierda.", "es"],
      ["Je vais te tuer", "fr"],
      ["Je te deteste, va mourir sale idiot.", "fr"],
    ]) expect(readLanguage(text!, EN), text).toEqual({ language, uncovered: { language, share: 1 } });
    // English with foreign names, particles or loanwords gets no such evidence (a word leading into
    // a capitalised one is a name's particle), nor do words inside a link.
    for (const text of [
      "I hate Muslims", "Disgusting maggot", "Snapchat me bitches", "c'mon, don't be like that",
      "Liverpool vs Real Madrid: Di Maria, Del Piero, Van der Sar. Shoot them all.", "Det(A) = ad - bc. Per row.",
      "Thanks man. Las Vegas del Sol.", "Maria de la Cruz.", "Les Paul and Des O'Connor", "He's sus af. Se ya, loser.",
      "https://www.youtube.com/watch?v=la_de_el kill all of them", "lol watch this https://es.wikipedia.org/wiki/La_casa_de_papel you idiot",
      // Too short or unsure for the n-grams: function words alone do not make them foreign.
      "Et tu, brute?", "ls -la && du -h", "yeh tha best", "Hai guys. Ko-fi is up.", "love u mimi, sana",
    ]) {
      expect(readLanguage(text, EN).uncovered, text).toBeUndefined();
    }
  });

  it("reads a short sentence in another language apart from the English before it, by its function words", () => {
    for (const [text, language] of [
      ["Thanks, see you tomorrow. Tu es une salope.", "fr"],
      ["I love you so much my friend, really. Je te déteste.", "fr"],
      ["lol ok. Eres un idiota.", "es"],
    ]) expect(readLanguage(text!, EN).uncovered?.language, text).toBe(language);
    // Short foreign sentences in a row read together, not each too short to tell.
    for (const text of ["Je te hais. Tu es nul. Je te tue.", "Tu es moche. Je te tue. Sale pute."]) {
      expect(readLanguage(text, EN), text).toEqual({ language: "fr", uncovered: { language: "fr", share: 1 } });
    }
    expect(readLanguage("Eres un pendejo, te odio.", EN).uncovered?.language).toBe("es");
    // A short English sentence still joins its neighbour.
    expect(readLanguage("Hey. Thanks for the lovely dinner, see you on Sunday!", EN).uncovered).toBeUndefined();
  });

  it("does not take accented French or Spanish for English once its accents are folded away", () => {
    for (const [text, language] of [
      ["Les musulmans sont des rats qui doivent être exterminés.", "fr"],
      ["J'ai préparé les médicaments, je vais en finir cette nuit.", "fr"],
      ["Mañana vamos a la playa con mis primos.", "es"],
    ]) expect(readLanguage(text!, EN), text).toEqual({ language, uncovered: { language, share: 1 } });
  });

  it("says a script the detector does not know is uncovered, language undetermined", () => {
    for (const text of ["ཁྱེད་རང་ལ་གསོད་རྒྱུ་ཡིན། ང་ཁྱེད་རང་ལ་སྡང་ངོ་།", "ខ្ញុំនឹងសម្លាប់អ្នកនៅយប់នេះ", "ငါမင်းကိုဒီညသတ်မယ်"]) {
      expect(readLanguage(text, EN), text).toEqual({ language: UNDETERMINED, uncovered: { language: UNDETERMINED, share: 1 } });
    }
  });
});

describe("language gate", () => {
  // Heads that score about 0 (silent) or flag everything (loud), so only the gate is under test.
  const quiet = withLanguageGate(constantEngine("silent"), ["en"]);
  const loud = withLanguageGate(constantEngine("loud"), ["en"]);
  const classify = (c: typeof quiet, text: string) => c.classify(text) as Verdict;

  it("leaves uncovered text unscored: categories absent, not 0, and says why", () => {
    for (const [text, language] of [[FRENCH, "fr"], [SPANISH, "es"], [GERMAN, "de"], [ARABIC, "ar"]] as const) {
      expect(classify(quiet, text)).toEqual({ categories: {}, explanations: {}, language, notEvaluated: { reason: "unsupported_language", language } });
    }
  });

  it("scores covered text as before and reports its language", () => {
    const v = classify(quiet, "Thanks for the lovely dinner, see you on Sunday!");
    expect(v.language).toBe("en");
    expect(v.notEvaluated).toBeUndefined();
    expect(Object.keys(v.categories)).toHaveLength(11);
  });

  it("scores mixed text and says which part it could not read", () => {
    const v = classify(quiet, MIXED);
    expect(v.language).toBe("en");
    expect(v.notEvaluated).toEqual({ reason: "partly_unsupported_language", language: "fr" });
    expect(Object.keys(v.categories)).toHaveLength(11);
  });

  it("never hides a flag the model raised: flagged uncovered text is reported as partly evaluated", () => {
    const v = classify(loud, FRENCH);
    expect(v.notEvaluated).toEqual({ reason: "partly_unsupported_language", language: "fr" });
    expect(Object.values(v.categories).some((c) => c?.flagged)).toBe(true);
  });

  it("keeps only the flags on text mostly uncovered: the model's other scores of it would read as judged", () => {
    // A model that flags harassment alone and scores every other category 0.
    const harassmentOnly: TextClassifier = {
      id: "harassment-only",
      classify: () => ({
        categories: Object.fromEntries(CATEGORY_IDS.map((c) => [c, { score: c === "harassment" ? 0.97 : 0, flagged: c === "harassment" }])),
        explanations: { harassment: [{ start: 0, end: 2, text: "Tu", weight: 1 }] },
      }),
    };
    const v = classify(withLanguageGate(harassmentOnly, ["en"]), FRENCH);
    expect(v).toEqual({
      categories: { harassment: { score: 0.97, flagged: true } },
      explanations: { harassment: [{ start: 0, end: 2, text: "Tu", weight: 1 }] },
      language: "fr",
      notEvaluated: { reason: "partly_unsupported_language", language: "fr" },
    });
  });
});

// Found by an audit: the reading took the text's whole NFKC form, and "\ufdfa" is 18 letters in
// it, so ten items of 10,000 of them (and their combined text) took 17-30 times prose to read.
describe("characters whose compatibility form is long", () => {
  it("stay themselves, as the model's normaliser keeps them, so the text read is at most twice as long", () => {
    const pieces: string[] = [];
    const picker = (piece: string) => {
      pieces.push(piece);
      return "ar";
    };
    const text = `${"\ufdfa".repeat(2_000)} ${"\ufdfb".repeat(2_000)}. ｙｏｕ ａｒｅ ａ ｗｏｒｔｈｌｅｓｓ ｉｄｉｏｔ.`;
    readLanguage(text, EN, picker);
    expect(pieces.join("").length).toBeGreaterThan(0);
    expect(pieces.join("").length).toBeLessThanOrEqual(2 * text.length);
    // Short compatibility forms still read as their letters: full-width Latin as ASCII.
    expect(pieces.some((piece) => piece.includes("you are a worthless idiot"))).toBe(true);
  });
});
