import { moveUnit, type Units } from "./word-breakers.js";

/*
 * HTML markup as the model reads it (normalize.ts, NormalizeOptions.dropMarkup): what a browser
 * shows. Tags of the common element names become spaces between words: their names were words to
 * the model ("<p>Trans people are freaks</p>" lost its hate flag). Markup between two letters
 * becomes nothing, since the rendered word is whole there: blanked, "ki<b></b>ll" and
 * "<span>ki</span>ll" read "ki l" and lost every flag (60 of 61 plainly harmful sentences).
 */

const SPACE = 32;
const LESS_THAN = 60, GREATER_THAN = 62, SLASH = 47, BANG = 33, DASH = 45;
const EQUALS = 61, DOUBLE_QUOTE = 34, SINGLE_QUOTE = 39;
/** How far a tag's attributes may run: no quadratic scan from every "<". */
const LONGEST_TAG = 300;

/** What a piece of markup at a "<" is; `end` is its last unit; `inline` if it breaks no line where shown. */
type Markup = { end: number; known: boolean; inline: boolean };

/**
 * Blanks known tags (spaces), and removes a run of adjacent inline markup with a letter on both
 * sides: known inline tags, markup-shaped unknown ones (markupShaped) and comments with no space
 * inside ("ki<!---->ll"). Elsewhere unknown tags and comments stay as written: "<kill>" is a word in
 * brackets and "<i want to kill myself>" a sentence, not markup to drop. Only known names, and
 * attributes only as name=value. Compacts in place. `isLetter` is the normaliser's letter test.
 */
export function blankHtmlTags(u: Units, isLetter: (point: number) => boolean): void {
  const c = u.cps;
  const n = u.length;
  const comments = new CommentCloser(c, n);
  let w = 0;
  let i = 0;
  while (i < n) {
    const first = c[i] === LESS_THAN ? markupAt(c, n, i, comments) : undefined;
    if (!first) {
      if (w !== i) moveUnit(u, i, w);
      w++;
      i++;
      continue;
    }
    // The run of markup touching this one ("<b></b>", "</span><!---->").
    const pieces = [{ from: i, ...first }];
    for (let next = c[first.end + 1] === LESS_THAN ? markupAt(c, n, first.end + 1, comments) : undefined; next; ) {
      const from = pieces[pieces.length - 1]!.end + 1;
      pieces.push({ from, ...next });
      next = c[next.end + 1] === LESS_THAN ? markupAt(c, n, next.end + 1, comments) : undefined;
    }
    const end = pieces[pieces.length - 1]!.end;
    const inWord = w > 0 && isLetter(c[w - 1]!) && end + 1 < n && isLetter(c[end + 1]!) && pieces.every((piece) => piece.inline);
    if (!inWord) {
      for (const piece of pieces) {
        for (let k = piece.from; k <= piece.end; k++, w++) {
          if (w !== k) moveUnit(u, k, w);
          if (piece.known) c[w] = SPACE;
        }
      }
    }
    i = end + 1;
  }
  u.length = w;
}

/** The markup starting at `i` (a "<"), or undefined. Unknown tags and comments have `known` false. */
function markupAt(c: Int32Array, n: number, i: number, comments: CommentCloser): Markup | undefined {
  if (c[i + 1] === BANG && c[i + 2] === DASH && c[i + 3] === DASH) {
    const end = comments.closeAfter(i + 4);
    return end >= 0 ? { end, known: false, inline: true } : undefined;
  }
  let j = i + 1;
  const closing = j < n && c[j] === SLASH;
  if (closing) j++;
  const nameStart = j;
  while (j < n && j - nameStart < 12 && isNameChar(c[j]!)) j++;
  const name = String.fromCharCode(...c.subarray(nameStart, j));
  if (name === "" || !(c[nameStart]! >= 97 && c[nameStart]! <= 122)) return undefined;
  const end = tagEnd(c, j, Math.min(n, j + LONGEST_TAG));
  if (end < 0) return undefined;
  if (HTML_TAGS.has(name)) return { end, known: true, inline: INLINE_TAGS.has(name) };
  // Browsers show unknown elements inline.
  return markupShaped(name, closing, end - j) ? { end, known: false, inline: true } : undefined;
}

/**
 * An unknown tag taken for markup between letters: a closing tag, one with attributes or "/>",
 * a custom element's hyphenated name, or a name of one or two characters ("ki<x>ll"). A longer
 * bare word in brackets ("you<kill>me") stays a word.
 */
function markupShaped(name: string, closing: boolean, afterName: number): boolean {
  return closing || afterName > 0 || name.includes("-") || name.length <= 2;
}

/**
 * Finds where comments close ("-->"), remembering the last search: comments are looked for in
 * order, so a text of thousands of "<!--" with one "-->" at its end is scanned once, not once each.
 */
class CommentCloser {
  private searchedFrom = Number.MAX_SAFE_INTEGER;
  private found = -1;
  constructor(
    private readonly c: Int32Array,
    private readonly n: number,
  ) {}

  /** The last unit of the first "-->" from `from`, or -1. A comment holding a space is not taken (see blankHtmlTags). */
  closeAfter(from: number): number {
    if (from < this.searchedFrom || (this.found >= 0 && this.found - 2 < from)) {
      this.searchedFrom = from;
      this.found = -1;
      for (let k = from; k + 2 < this.n; k++) {
        if (this.c[k] === DASH && this.c[k + 1] === DASH && this.c[k + 2] === GREATER_THAN) {
          this.found = k + 2;
          break;
        }
      }
    }
    if (this.found < 0) return -1;
    return this.spaceAfter(from) < this.found ? -1 : this.found;
  }

  private space = -1;

  /** The first space from `from` on (or n), kept between calls: `from` only grows. */
  private spaceAfter(from: number): number {
    if (this.space < from) {
      this.space = from;
      while (this.space < this.n && this.c[this.space] !== SPACE) this.space++;
    }
    return this.space;
  }
}

/** Where a tag's attributes (name=value, each after a space) end at ">", or -1 if they are not that. */
function tagEnd(c: Int32Array, from: number, limit: number): number {
  let j = from;
  for (;;) {
    while (j < limit && c[j] === SPACE) j++;
    if (j >= limit) return -1;
    if (c[j] === GREATER_THAN) return j;
    if (c[j] === SLASH) return j + 1 < limit && c[j + 1] === GREATER_THAN ? j + 1 : -1;
    // One attribute: its name, "=", and a value quoted or bare.
    if (j === from || c[j - 1] !== SPACE) return -1;
    const nameStart = j;
    while (j < limit && isAttributeNameChar(c[j]!)) j++;
    if (j === nameStart || j >= limit || c[j] !== EQUALS) return -1;
    j++;
    const quote = c[j];
    if (quote === DOUBLE_QUOTE || quote === SINGLE_QUOTE) {
      j++;
      while (j < limit && c[j] !== quote) j++;
      if (j >= limit) return -1;
      j++;
    } else {
      const valueStart = j;
      while (j < limit && c[j] !== SPACE && c[j] !== GREATER_THAN && c[j] !== LESS_THAN && c[j] !== DOUBLE_QUOTE && c[j] !== SINGLE_QUOTE) j++;
      if (j === valueStart) return -1;
    }
  }
}
const isNameChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === DASH;
const isAttributeNameChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 95 || c === 58;
/** Elements shown within a line: between two letters they split no word ("<br>", "<p>", "<td>" do). */
const INLINE_TAGS: ReadonlySet<string> = new Set([
  "a", "abbr", "b", "code", "del", "em", "font", "i", "ins", "label", "mark", "q", "s", "small", "span", "strike", "strong", "sub", "sup", "tt", "u",
]);
const HTML_TAGS: ReadonlySet<string> = new Set([
  "a", "abbr", "article", "aside", "b", "blockquote", "body", "br", "button", "center", "code", "dd", "del", "div", "dl", "dt", "em",
  "font", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hr", "html", "i", "iframe", "img", "input", "ins",
  "label", "li", "link", "main", "mark", "meta", "nav", "ol", "p", "pre", "q", "s", "script", "section", "small", "span", "strike",
  "strong", "style", "sub", "sup", "table", "tbody", "td", "th", "thead", "title", "tr", "tt", "u", "ul",
]);
