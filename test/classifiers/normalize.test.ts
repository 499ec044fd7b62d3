import { describe, expect, it } from "vitest";
import { mayUseInvisibleSpaces, normalizeText } from "../../src/classifiers/normalize/normalize.js";

const norm = (s: string): string => normalizeText(s).text;

describe("normalizeText", () => {
  it("undoes leetspeak inside words but leaves numbers alone", () => {
    expect(norm("I H4TE y0u")).toBe(norm("i hate you"));
    expect(norm("sh!t a$$")).toBe("shit as");
    expect(norm("$100 in 2024!")).toBe("$100 in 2024!");
  });

  it("reads typographic apostrophes as the plain one (phone keyboards type them)", () => {
    expect(norm("I\u2019m back, don\u2018t, \u02bcokina")).toBe("i'm back, don't, 'okina");
  });

  it("reads punctuation outside ASCII as the ASCII mark of its kind (the tokeniser took it for part of a word)", () => {
    expect(norm("you idiot\u2014go away, \u201ckill\u201d, \u00abtuer\u00bb, self\u2010harm")).toBe(norm('you idiot-go away, "kill", "tuer", self-harm'));
    expect(norm("kill\u2022you\u30fbnow")).toBe("kil you now");
    expect(norm("\u6740\u4e86\u4f60\u3002")).toBe("\u6740\u4e86\u4f60.");
    // Forms NFKC makes ASCII, and the middle dot between spaced letters, as before.
    expect(norm("idiot\uff01 wait\u2026")).toBe("idiot! wait...");
    expect(norm("k\u00b7i\u00b7l\u00b7l")).toBe("kil");
  });

  it("drops markdown emphasis around several words, keeping masked words", () => {
    expect(norm("**Kill yourself, nobody would miss you.**")).toBe(norm("Kill yourself, nobody would miss you."));
    expect(norm("_you idiot_ and *sigh*")).toBe("you idiot and sigh");
    expect(norm("**Why** the f** not, sh** happens")).toBe("why the f** not, sh** hapens");
    expect(norm("snake_case_var")).toBe("snake_case_var");
  });

  it("blanks HTML tags of common elements for the model, not words or sentences in angle brackets", () => {
    const model = (s: string): string => normalizeText(s, { dropMarkup: true }).text;
    expect(model("<p>Trans people are freaks</p><br/>")).toBe("trans people are freaks");
    expect(model('<a href="https://x.test">link</a> <B>bold</B> <div class=x id=\'y\'>hi</div>')).toBe("link bold hi");
    expect(model("<kill> you, I <3 you, a < b > c")).toBe("<kil> you, i <3 you, a < b > c");
    // A sentence opening with a tag's name is not a tag (it was erased, and with it every flag).
    expect(model("<i want to kill myself>")).toBe("<i want to kil myself>");
    expect(model("<i x=1 will kill you>")).toBe("<i x=1 wil kil you>");
    // Never past the text: the scratch after it holds an earlier call's units.
    normalizeText("abcd>", { dropMarkup: true });
    expect(model("x <b")).toBe("x <b");
    // Without the option (policy terms, which may name a tag), tags stay.
    expect(norm("<script>")).toBe("<script>");
  });

  it("joins spaced-out letters", () => {
    expect(norm("k i l l them")).toBe(norm("kill them"));
    expect(norm("k.i.l.l y.o.u")).toBe(norm("kill you"));
    expect(norm("I am a cat")).toBe("i am a cat");
  });

  it("collapses repeated letters so stretched words match", () => {
    expect(norm("kiiiiilllll")).toBe(norm("kill"));
    expect(norm("fuuuuuck")).toBe(norm("fuck"));
  });

  it("lets one character fold to at most four (a ligature of 18 made a 10,000-character text 180,000 units to read)", () => {
    expect(norm("⒀ ㎉")).toBe("(13) kcal");
    expect(norm("\uFDFA")).toBe("\uFDFA");
    expect([...norm("\uFDFA\uFDFB\u321D".repeat(1000))].length).toBe(3000);
  });

  it("folds Unicode look-alikes, compatibility forms and diacritics", () => {
    expect(norm("Кill уоu")).toBe(norm("kill you")); // Cyrillic К, у, о
    expect(norm("ℍ𝕒𝕥𝕖")).toBe("hate");
    expect(norm("Ｈａｔｅ")).toBe("hate");
    expect(norm("naïve café")).toBe("naive cafe");
    // The capital sharp s as the small one, though it lower-cases to ß only after folding.
    expect(norm("STRAẞE")).toBe(norm("straße"));
  });

  it("drops zero-width and other invisible characters", () => {
    expect(norm("ki\u200bl\u200dl")).toBe(norm("kill"));
    // The second reading: zero-width spacers read as spaces, single letters still joined.
    expect(normalizeText("you\u200bstupid\u2060idiot", { invisibleAsSpace: true }).text).toBe(norm("you stupid idiot"));
    expect(normalizeText("k\u200bi\u200bl\u200bl you", { invisibleAsSpace: true }).text).toBe(norm("kill you"));
    expect([mayUseInvisibleSpaces("kill\u200byou"), mayUseInvisibleSpaces("\u200bkill you\u200b"), mayUseInvisibleSpaces("kill you")]).toEqual([true, false, false]);
    expect(norm("h\ufeffa\u2060te")).toBe("hate");
  });

  it("drops ASCII control characters and lone surrogates inside a word, and keeps whitespace as a space", () => {
    expect(norm("k\u0000i\u0008l\u007fl you")).toBe(norm("kill you"));
    expect(norm("h\ud800ate")).toBe("hate");
    expect(norm("h\udfffate")).toBe("hate");
    expect(norm("you\tidiot")).toBe(norm("you idiot"));
  });

  it("reads text behind a right-to-left override as it is displayed, up to the override's end", () => {
    expect(norm("\u202etoidi na era uoy")).toBe(norm("you are an idiot"));
    expect(norm("hi \u202etoidi na era uoy\u202c, bye")).toBe(norm("hi you are an idiot, bye"));
    // A line break ends it too; the next line reads as stored.
    expect(norm("\u202eoof\nbar")).toBe(norm("foo bar"));
    const { start } = normalizeText("hi \u202etoidi na era uoy\u202c, bye");
    for (let k = 1; k < start.length; k++) expect(start[k]!).toBeGreaterThanOrEqual(start[k - 1]!);
  });

  it("ends an override only where its own close is, as UAX #9 pairs them (an unmatched close ended it)", () => {
    // Found by an audit: each is shown as "I will kill you", and was read backwards from the first close.
    for (const text of ["\u202euoy\u2069 llik lliw I", "\u202e\u202euoy\u202c llik lliw I\u202c", "\u202e\u2067\u2069uoy llik lliw I"]) {
      expect(norm(text), JSON.stringify(text)).toBe(norm("I will kill you"));
    }
    // A PDF cannot close past an open isolate: "ab" stays in the isolate, shown forwards, and the
    // PDI returns to the override, whose "cd" is shown backwards. (Where the override's own text
    // lies on both sides of a nested block, the blocks are read in stored order, not display order.)
    expect(norm("\u202e\u2066\u202cab\u2069cd\u202c")).toBe(norm("abdc"));
    // A paragraph separator closes everything (a carriage return and NEL are separators too).
    expect(norm("\u202e\u202eoof\u2029bar")).toBe(norm("foo bar"));
    expect(norm("\u202eoof\rbar")).toBe(norm("foo\rbar"));
    expect(norm("\u202eoof\u0085bar")).toBe(norm("foo\u0085bar"));
    // Text inside a left-to-right override, embedding or isolate nested in the override is shown
    // forwards, and read so (it was read backwards).
    for (const inner of ["\u202d", "\u202a", "\u2066"]) {
      const close = inner === "\u2066" ? "\u2069" : "\u202c";
      expect(norm(`\u202e${inner}I will kill you${close}\u202c`), JSON.stringify(inner)).toBe(norm("I will kill you"));
    }
    // Past UAX #9's depth of 125 controls are counted, not opened: the override stays open.
    expect(norm(`\u202e${"\u202a".repeat(200)}${"\u202c".repeat(200)}uoy llik lliw I`)).toBe(norm("I will kill you"));
  });

  it("maps every normalised unit back to input code points", () => {
    const input = "😀 K\u200bI\u200bL\u200bL";
    const n = normalizeText(input);
    expect(n.text).toBe(norm("😀 kill"));
    const k = n.text.indexOf("k");
    const l = n.text.lastIndexOf("l");
    const cps = Array.from(input);
    // The emoji is one code point, so "K" is at code point 2 despite the surrogate pair.
    expect(n.start[k]).toBe(2);
    expect(cps.slice(n.start[k], n.end[l]).join("")).toBe("K\u200bI\u200bL\u200bL");
  });

  // Each case below left a plainly harmful sentence unflagged before (an evasion pass over 25 such
  // sentences, CHANGELOG 2026-12-19): the words a reader sees must be the words the model reads.
  it("drops an emoji inside a word and parts one glued to a word from it", () => {
    expect(norm("I will ki\u{1f52a}ll you")).toBe(norm("I will kill you"));
    expect(norm("k\u{1f600}i\u{1f600}l\u{1f600}l")).toBe(norm("kill"));
    expect(norm("I will kill\u{1f52a} you")).toBe(norm("I will kill \u{1f52a} you"));
    // An emoji used as a noun keeps its token: "🐒s" is the emoji and a suffix, not a new word.
    expect(norm("they are \u{1f412}s")).toBe(norm("they are \u{1f412} s"));
    // Skin tones and joined sequences count as one run.
    expect(norm("so\u{1f44f}\u{1f3fd}effing")).toBe("soefing");
  });

  it("reads a run of flag letters as the letters it spells, but a flag (two of them) as a flag", () => {
    expect(norm("\u{1f1f0}\u{1f1ee}\u{1f1f1}\u{1f1f1} you")).toBe(norm("kill you"));
    expect(norm("go \u{1f1fa}\u{1f1f8}")).toBe("go \u{1f1fa}\u{1f1f8}");
  });

  it("folds enclosed letters that NFKD leaves alone or brackets, and small-cap G", () => {
    expect(norm("\u{1f165}\u{1f154}\u{1f161}\u{1f15c}\u{1f158}\u{1f15d}")).toBe("vermin");
    expect(norm("\u{1f17a}\u{1f178}\u{1f17b}\u{1f17b}")).toBe(norm("kill"));
    expect(norm("\u24a6\u24a4\u24a7\u24a7")).toBe(norm("kill"));
    expect(norm("\u0274\u026a\u0262\u0262\u1d07\u0280")).toBe(norm("nigger"));
  });

  it("reads blank-looking fillers as spaces, not as nothing", () => {
    expect(norm("I\u2800will\u2800kill\u2800you")).toBe(norm("I will kill you"));
    expect(norm("I\u3164will\u115fkill\uffa0you")).toBe(norm("I will kill you"));
  });

  it("removes paired markdown emphasis inside a word and keeps a masked word whole", () => {
    expect(norm("I want to k**ill** m**yself**")).toBe(norm("I want to kill myself"));
    expect(norm("**kill** ~~them~~ __all__")).toBe(norm("kill them all"));
    expect(norm("f**k you")).toBe("f**k you");
  });

  it("decodes HTML character references and URL-encoded letters, and leaves other percent signs", () => {
    expect(norm("&#107;ill &#x59;OU &amp; them")).toBe(norm("kill you & them"));
    expect(norm("%6Bill you")).toBe(norm("kill you"));
    expect(norm("100% sure, %20 and &#0; &#55296; &bogus;")).toBe("100% sure, %20 and &#0; &#55296; &bogus;");
    // A decoded letter maps back to its whole escape, so an explanation quotes the escape, not "&".
    const quote = (input: string, word: string) => {
      const n = normalizeText(input);
      const from = n.text.indexOf(word);
      return Array.from(input).slice(n.start[from]!, n.end[from + word.length - 1]!).join("");
    };
    expect(quote("you are an idio&#116;", "idiot")).toBe("idio&#116;");
    expect(quote("go kil%6C yourself", "kil")).toBe("kil%6C");
    expect(quote("a &#107;ill", "kil")).toBe("&#107;ill");
    // A repeat collapsed onto a decoded letter ends where the repeat's escape ends.
    expect(quote("%6B%6Bill now", "kil")).toBe("%6B%6Bill");
    // Both halves of a repeated astral letter end after the last repeat.
    const astral = normalizeText("\u{20000}\u{20000} x");
    expect([astral.end[0], astral.end[1]]).toEqual([2, 2]);
  });

  it("joins letters split by mixed punctuation, but not letters tied into other words", () => {
    expect(norm("I will k-i_l.l you")).toBe(norm("I will kill you"));
    expect(norm("d.o I h.a.v.e")).toBe("d.o i have");
    expect(norm("k.i.l.l y.o.u")).toBe(norm("kill you"));
  });

  it("keeps every unit's offsets in order and inside the input, whatever the steps inserted or removed", () => {
    const input = "x\u{1f52a}y k**i**l &#107; \u{1f1f0}\u{1f1ee}\u{1f1f1} a.b-c";
    const n = normalizeText(input);
    const points = Array.from(input).length;
    expect(n.start.length).toBe(n.text.length);
    for (let k = 0; k < n.text.length; k++) {
      expect(n.start[k]!).toBeLessThan(n.end[k]!);
      expect(n.end[k]!).toBeLessThanOrEqual(points);
      if (k > 0) expect(n.start[k]!).toBeGreaterThanOrEqual(n.start[k - 1]!);
    }
  });

  it("is deterministic and total on odd input", () => {
    const odd = "\u0000\ud800 \u0301\u0301 \t\n";
    expect(() => normalizeText(odd)).not.toThrow();
    expect(normalizeText("Same text").text).toBe(normalizeText("Same text").text);
  });
});

describe("the second reading's spacers", () => {
  // Found by a review: the soft hyphen, ZWNJ and ZWJ sit inside words by design (hyphenated web
  // text, Persian spelling, emoji), and read as spaces they split them.
  // ZWNJ and ZWJ between Latin letters are also read as spaces, in the second reading only (which
  // can only raise a score): put for every space, they hid whole sentences (audit-evasion F3). Not
  // the soft hyphen: a review found "Scun\u00adthorpe" flagged once it was read so.
  it("leave the soft hyphen, ZWNJ and ZWJ to the word they are in", () => {
    expect(mayUseInvisibleSpaces("من می\u200cخواهم")).toBe(false);
    expect(mayUseInvisibleSpaces("\u{1f469}\u200d\u{1f4bb} dev")).toBe(false);
    expect(mayUseInvisibleSpaces("Bundes\u00adregierung")).toBe(false);
    expect(mayUseInvisibleSpaces("She lives in Scun\u00adthorpe and works in Sus\u00adsex.")).toBe(false);
    expect(mayUseInvisibleSpaces("ki\u200dll")).toBe(true);
    expect(normalizeText("Bundes\u00adregierung").text).toBe(normalizeText("Bundesregierung").text);
    expect(normalizeText("من می\u200cخواهم", { invisibleAsSpace: true }).text).toBe(normalizeText("من میخواهم").text);
  });
});
