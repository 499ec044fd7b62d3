import fs from "node:fs";
import path from "node:path";
import { eld } from "eld/medium";
import { describe, expect, it } from "vitest";
import { compiledNgramCount, eldTextWords, eldTopLanguage, textWords } from "../../src/classifiers/language/eld-top-language.js";
import { eldPick, readLanguage } from "../../src/classifiers/language/read-language.js";

// The fast pick (eld-top-language.ts) must be ELD's pick, and readLanguage with it the same reading
// as with ELD's own detect(), on every text here. Sentences written for this test (not from any
// dataset), in 30 languages and scripts; the texts below are cut, joined and mixed from them.
const SENTENCES = [
  "Thanks for the quick reply, see you at the meeting tomorrow. I think the plan is good.",
  "I will find you tonight and you are going to regret it, everyone hates you.",
  "you worthless idiot", "wtf is wrong with u", "k1ll urself", "Ur mom is a hoe", "lol ok", "kys",
  "Don't you dare say that again, it's not funny and you know it.",
  "@someone check https://example.com/x?y=1 #topic &amp; more",
  "Je vais te retrouver ce soir et tu vas le regretter, tout le monde te déteste.",
  "Merci pour le dîner d'hier soir, c'était vraiment très agréable de vous revoir.",
  "Quiero morir esta noche, ya no aguanto más esta vida.",
  "¿Dónde está la estación de tren? Necesito llegar a Madrid antes del mediodía.",
  "Ich will nicht mehr leben, alles ist sinnlos geworden.",
  "Könnten Sie mir bitte sagen, wann der nächste Zug nach München fährt?",
  "سأجدك الليلة وستندم على ذلك",
  "شكرا جزيلا على مساعدتك في هذا المشروع، نراك غدا.",
  "Я тебя убью", "Спасибо за помощь, увидимся завтра на встрече.",
  "Dziękuję bardzo za pomoc, do zobaczenia jutro.",
  "Grazie mille per la cena di ieri sera, è stato bellissimo rivedervi.",
  "Obrigado pela ajuda, vejo você amanhã na reunião.",
  "Bedankt voor het snelle antwoord, tot morgen bij de vergadering.",
  "Tack för hjälpen, vi ses imorgon på mötet.",
  "Kiitos avusta, nähdään huomenna kokouksessa.",
  "Yardımınız için çok teşekkürler, yarın toplantıda görüşürüz.",
  "Cảm ơn bạn rất nhiều, hẹn gặp lại vào ngày mai.",
  "Terima kasih atas bantuan anda, jumpa esok di mesyuarat.",
  "Salamat sa tulong mo, magkita tayo bukas sa pulong.",
  "Ευχαριστώ πολύ για τη βοήθεια, τα λέμε αύριο.",
  "תודה רבה על העזרה, נתראה מחר בפגישה.",
  "आपकी मदद के लिए बहुत धन्यवाद, कल बैठक में मिलते हैं।",
  "ご協力ありがとうございます。明日の会議でお会いしましょう。",
  "谢谢你的帮助，明天会议上见。",
  "도와주셔서 정말 감사합니다. 내일 회의에서 뵙겠습니다.",
  "ขอบคุณมากสำหรับความช่วยเหลือ แล้วพบกันพรุ่งนี้",
  "Děkuji moc za pomoc, uvidíme se zítra na schůzce.",
  "Köszönöm szépen a segítséget, holnap találkozunk.",
  "Mulțumesc mult pentru ajutor, ne vedem mâine la ședință.",
  "уоu аrе а wоrthlеss іdіоt аnd І wіll kіll уоu",
  "🙂🙂🙂 1234 !!! ... ---", "", "a", "ab cd", "   ", "e\u0301te\u0301", "x\ud83d",
  // ASCII text is cut into words on its own path (apostrophes and backticks end a separator or not).
  "''Quoted'' words, `backticks` and it's ' lone ' apostrophes '' here' ` x`` y'",
  "--- leading separators... and trailing ones!!!''", "'''", "' a", "a '", "don't'stop", "9'9 x'1 '1'",
];

/** A seeded generator, so every run checks the same texts. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function variedTexts(): string[] {
  const random = prng(21);
  const pick = () => SENTENCES[Math.floor(random() * SENTENCES.length)]!;
  const texts = [...SENTENCES];
  for (const s of SENTENCES) for (const n of [3, 8, 15, 30]) texts.push(s.slice(0, n), s.slice(-n));
  for (let i = 0; i < 200; i++) texts.push(`${pick()} ${pick()}`, `${pick()}\n${pick()} ${pick()}`.toUpperCase());
  // Words of different languages shuffled together, and runs of random letters from several scripts.
  const words = SENTENCES.flatMap((s) => s.split(/\s+/)).filter(Boolean);
  for (let i = 0; i < 200; i++) texts.push(Array.from({ length: 1 + Math.floor(random() * 12) }, () => words[Math.floor(random() * words.length)]).join(" "));
  const ranges = [[0x61, 26], [0xe0, 32], [0x430, 32], [0x627, 26], [0x3041, 80], [0x4e00, 500], [0x1f600, 60]] as const;
  for (let i = 0; i < 100; i++) {
    let s = "";
    for (let n = Math.floor(random() * 60); n > 0; n--) {
      const [start, size] = ranges[Math.floor(random() * ranges.length)]!;
      s += random() < 0.2 ? " " : String.fromCodePoint(start + Math.floor(random() * size));
    }
    texts.push(s);
  }
  // Long texts: ELD reads its first 1,000 characters and about 380 bytes of them.
  texts.push(SENTENCES.join(" ").repeat(3));
  const ascii = SENTENCES.filter((t) => /^[\x00-\x7f]*$/.test(t)).join(" ");
  for (let cut = 330; cut < 420; cut += 3) texts.push(ascii.repeat(3).slice(0, cut), ascii.slice(0, cut).replace(/ /g, "' "), `''${ascii.repeat(4)}`);
  return texts;
}

/** English lines from the shared datasets, where this checkout has them beside it (not needed for the test to run). */
function datasetTexts(): string[] {
  // A worktree lies one level further from the shared folder than the main checkout.
  const file = ["../shared", "../../shared"].map((dir) => path.resolve(dir, "datasets/hatecheck/test_suite_cases.csv")).find((f) => fs.existsSync(f));
  if (!file) return [];
  return fs.readFileSync(file, "utf8").split("\n").slice(1, 400).map((line) => line.split(",")[3] ?? "").filter(Boolean);
}

describe("ELD's pick, computed faster", () => {
  const texts = [...variedTexts(), ...datasetTexts()];

  it("is ELD's pick on every text", () => {
    expect(texts.length).toBeGreaterThan(1100);
    const differing = texts.filter((t) => eldTopLanguage(t) !== eld.detect(t).language);
    expect(differing).toEqual([]);
    // Not a trivially equal pair: the texts span many languages.
    expect(new Set(texts.map(eldTopLanguage)).size).toBeGreaterThan(25);
  });

  it("cuts ASCII text into ELD's words on its own path", () => {
    const ascii = texts.filter((t) => /^[\x00-\x7f]*$/.test(t));
    // 445 of the texts written here are ASCII; a checkout beside the shared datasets adds ~400 more.
    expect(ascii.length).toBeGreaterThan(400);
    for (const text of ascii) expect(textWords(text), text).toEqual(eldTextWords(text));
  });

  it("gives readLanguage the same readings as ELD's own detect", () => {
    for (const covered of [new Set(["en"]), new Set(["en", "fr", "es"])]) {
      for (const text of texts) expect(readLanguage(text, covered), text).toEqual(readLanguage(text, covered, eldPick));
    }
  });
});

describe("the pick's caches stay bounded", () => {
  it("texts of words in no language do not grow the n-gram cache", () => {
    eldTopLanguage("zqxv wkjq pfzx");
    const before = compiledNgramCount();
    // 30,000 made-up words (more than the word cache holds): their n-grams are in no table.
    for (let t = 0; t < 300; t++) {
      const words = Array.from({ length: 100 }, (_, i) => `qz${(t * 100 + i).toString(36)}xq`);
      eldTopLanguage(words.join(" "));
    }
    expect(compiledNgramCount()).toBeLessThanOrEqual(before + 50);
  });
});
