/**
 * Look-alike letters from other scripts that survive NFKD (Cyrillic, Greek, IPA, letter-like symbols),
 * folded to the Latin letter they imitate. Covers the common homoglyph substitutions; NFKD already
 * handles full-width, mathematical-alphanumeric and circled/parenthesised letters.
 */
const TABLE: Record<string, string> = {
  // Cyrillic
  "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
  "т": "t", "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w",
  "һ": "h", "ӏ": "l", "ɡ": "g", "ү": "y", "ь": "b", "з": "3", "п": "n", "г": "r", "д": "d",
  "А": "a", "В": "b", "Е": "e", "К": "k", "М": "m", "Н": "h", "О": "o", "Р": "p", "С": "c", "Т": "t",
  "У": "y", "Х": "x", "І": "i", "Ј": "j", "Ѕ": "s", "Ү": "y",
  // Greek
  "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
  "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ς": "c", "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h",
  "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n", "Ο": "o", "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x",
  // IPA / Latin extensions and symbols that look like letters
  "ı": "i", "ɩ": "i", "ɑ": "a", "ɐ": "a", "ǝ": "e", "ɛ": "e", "ɪ": "i", "ʟ": "l", "ɴ": "n", "ʀ": "r",
  "ʏ": "y", "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ꜰ": "f", "ʜ": "h", "ᴊ": "j", "ᴋ": "k",
  "ᴍ": "m", "ᴏ": "o", "ᴘ": "p", "ꜱ": "s", "ᴛ": "t", "ᴜ": "u", "ᴠ": "v", "ᴡ": "w", "ᴢ": "z", "ɢ": "g", "ǫ": "q",
  "ø": "o", "Ø": "o", "ł": "l", "Ł": "l", "đ": "d", "Đ": "d", "ħ": "h", "ß": "ss", "ẞ": "ss", "æ": "ae", "œ": "oe",
  "∂": "d", "ƒ": "f", "µ": "u", "×": "x",
  // Armenian (Unicode's confusables): "yօս" is "you" (60 of 61 harmful sentences so written passed).
  "օ": "o", "Օ": "o", "ս": "u", "Ս": "u", "հ": "h", "ո": "n", "ց": "g", "զ": "q", "ժ": "d", "Տ": "s", "Լ": "l",
  // Lisu (Fraser alphabet) capitals, the Latin capitals they copy: "ꓗꓲꓡꓡ" is "kill".
  "ꓐ": "b", "ꓑ": "p", "ꓓ": "d", "ꓔ": "t", "ꓖ": "g", "ꓗ": "k", "ꓙ": "j", "ꓚ": "c", "ꓜ": "z", "ꓝ": "f", "ꓟ": "m",
  "ꓠ": "n", "ꓡ": "l", "ꓢ": "s", "ꓣ": "r", "ꓦ": "v", "ꓧ": "h", "ꓪ": "w", "ꓫ": "x", "ꓬ": "y", "ꓮ": "a", "ꓰ": "e",
  "ꓲ": "i", "ꓳ": "o", "ꓴ": "u",
};

/** Cherokee capitals that copy Latin ones ("ᏦIᏞᏞ" is "kill"); their small letters are added below. */
const CHEROKEE: Record<string, string> = {
  "Ꭰ": "d", "Ꭱ": "r", "Ꭲ": "t", "Ꭵ": "i", "Ꭹ": "y", "Ꭺ": "a", "Ꭻ": "j", "Ꭼ": "e", "Ꮃ": "w", "Ꮇ": "m", "Ꮋ": "h",
  "Ꮍ": "y", "Ꮐ": "g", "Ꮒ": "h", "Ꮓ": "z", "Ꮟ": "b", "Ꮢ": "r", "Ꮤ": "w", "Ꮥ": "s", "Ꮩ": "v", "Ꮪ": "s", "Ꮮ": "l",
  "Ꮯ": "c", "Ꮲ": "p", "Ꮶ": "k", "Ᏼ": "b",
};
// The small letters (U+AB70..) are the capitals' shapes at x-height, as small capitals are ("ᴋ").
for (const [capital, latin] of Object.entries(CHEROKEE)) {
  TABLE[capital] = latin;
  const small = capital.toLowerCase();
  if (small !== capital) TABLE[small] = latin;
}

/** The Latin letter(s) a look-alike stands for, or undefined when the character is not a known look-alike. */
export function foldConfusable(ch: string): string | undefined {
  return TABLE[ch];
}
