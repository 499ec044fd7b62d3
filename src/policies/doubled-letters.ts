/**
 * Matching collapses repeated letters ("kiiiill" is "kil"), so that stretched words still match;
 * alone, that made the block-list term "ass" match "as", "butt" match "but" and "good" match
 * "God". A list term whose letters are doubled matches only where the text doubles (at least as
 * many) letters too: "ass", "asss", "a s s" and "a55" match "ass"; "as" does not.
 *
 * Counted on a light fold of the text as written (compatibility forms, lower case, ß as "ss",
 * letters and digits only), not the matcher's full normalisation: a leetspeak digit doubles
 * only with itself ("a55", not "a5s").
 */
export function doubledRuns(text: string): number {
  // Plain ASCII needs no Unicode folding (a span of a hit is usually ASCII).
  const folded = isAscii(text) ? text : text.normalize("NFKC").toLowerCase().replace(/ß/g, "ss");
  let runs = 0;
  let previous = -1;
  let inRun = false;
  for (let i = 0; i < folded.length; i++) {
    let c = folded.charCodeAt(i);
    if (c < 128) {
      if (c >= 65 && c <= 90) c += 32; // A-Z
      else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) continue; // not a letter or digit
    } else if (!LETTER_OR_DIGIT.test(folded[i]!) && !(c >= 0xd800 && c <= 0xdfff)) {
      continue;
    }
    if (c === previous) {
      if (!inRun) runs++;
      inRun = true;
    } else {
      inRun = false;
    }
    previous = c;
  }
  return runs;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}
