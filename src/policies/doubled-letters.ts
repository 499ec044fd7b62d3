import { foldConfusable } from "../classifiers/normalize/confusables.js";
import { LEET_SYMBOLS } from "../classifiers/normalize/normalize.js";
/**
 * Matching collapses repeated letters ("kiiiill" is "kil"), so that stretched words still match;
 * alone, that made the block-list term "ass" match "as", "butt" match "but" and "good" match
 * "God". A list term whose letters are doubled matches only where the text doubles (at least as
 * many) letters too: "ass", "asss", "a s s" and "a55" match "ass"; "as" does not.
 *
 * Counted on a light fold of the text as written (compatibility forms, lower case, ß as "ss",
 * letters, digits and the symbols leetspeak writes for letters), not the matcher's full
 * normalisation: a leetspeak digit or symbol doubles only with itself ("a55" and "a$$", not
 * "a5s"; skipped, "$$" doubled nothing and "pu$$y" missed the term "pussy").
 */
export function doubledRuns(text: string): number {
  return letterRuns(text).runs;
}

/**
 * Runs of a repeated letter in `text` (as doubledRuns counts them), and how many of them are
 * exactly two long. A term matches a span with at least as many runs as the term has; a short
 * term also with no more pairs than that (term-matcher.ts SHORT_TERM): English doubles a letter
 * twice in a word ("good", "feed") and stretches it to three or more ("haaate"), so the term "god"
 * does not match "good", nor "fed" "feed", while "god" still matches "gooood".
 */
export function letterRuns(text: string): LetterRuns {
  return countRuns(letterCodes(text));
}

export interface LetterRuns {
  runs: number;
  pairs: number;
}

/**
 * The letters of `text` as letterRuns compares them: the UTF-16 units of its light fold, look-alikes
 * read as the letter they imitate, everything but letters, digits and leet symbols left out.
 * span-letter-runs.ts folds a whole input with it, a cluster at a time.
 */
export function letterCodes(text: string): number[] {
  // Plain ASCII needs no Unicode folding (a span of a hit is usually ASCII).
  const folded = isAscii(text) ? text : text.normalize("NFKC").toLowerCase().replace(/ß/g, "ss");
  const codes: number[] = [];
  for (let i = 0; i < folded.length; i++) {
    let c = folded.charCodeAt(i);
    if (c < 128) {
      if (c >= 65 && c <= 90) c += 32; // A-Z
      else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || LEET_SYMBOLS.includes(folded[i]!))) continue; // not a letter, digit or leet symbol
    } else if (!LETTER_OR_DIGIT.test(folded[i]!) && !LEET_SYMBOLS.includes(folded[i]!) && !(c >= 0xd800 && c <= 0xdfff)) {
      continue;
    } else {
      // A look-alike doubles with the letter it imitates: "apрle" (a Cyrillic "р") doubles the p,
      // as the matcher reads it "apple"; counted apart, one look-alike let the text past "apple".
      const imitated = foldConfusable(folded[i]!);
      if (imitated?.length === 1) c = imitated.charCodeAt(0);
    }
    codes.push(c);
  }
  return codes;
}

/** Runs of a repeated code in `codes` (2 or more long), and how many are exactly two long. */
function countRuns(codes: readonly number[]): LetterRuns {
  let runs = 0;
  let pairs = 0;
  let previous = -1;
  let length = 0;
  for (const c of codes) {
    if (c === previous) {
      length++;
      if (length === 2) runs++;
    } else {
      if (length === 2) pairs++;
      length = 1;
    }
    previous = c;
  }
  if (length === 2) pairs++;
  return { runs, pairs };
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}
