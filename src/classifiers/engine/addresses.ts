import type { Token } from "../model/features.js";

/**
 * Addresses are not words: a link's pieces, an @handle and a Reddit u/ or r/ name would each be
 * read by the model as words of the text, and in a bag of words one appended to a short message
 * dilutes it (the mean over its tokens): "My boss is a greedy, lying piece of trash." is
 * harassment 0.73, after "@john_doe " it was 0.47, under the bar (33 of 352 written sentences
 * changed a flag with a leading handle; a link after them changed 47). The engine reads the text
 * without them (docs/model-history.md, sessions 38 and 39).
 */

/**
 * The tokens without a link's address: the scheme and host are dropped, and in the path the
 * pieces of one or two characters or with digits; the path's words stay ("x.co/you-worthless-idiot"
 * is still read). Only http(s), ftp and www. addresses count.
 *
 * Digits are looked for in the caller's characters (`originalOf`: the text behind normalised
 * [from, to)): leetspeak reading has turned most of them into letters by now, and a video id
 * ("youtu.be/dQw4w9WgXcQ" read "dqwawgwgxcq") stayed as a made-up word whose n-grams swamped a
 * short message: 94 of 208 flagged harmful sentences lost every flag with such a link after
 * them, 5 with an id whose digits survived normalisation (audit of session 53). A piece whose
 * leetspeak reads as harm is kept (`readsAsHarm`, as for handles): "x.co/i-will-k1ll-you" is a
 * message written as a path (found by a review).
 */
export function withoutLinks(
  text: string,
  tokens: Token[],
  originalOf: (from: number, to: number) => string = (from, to) => text.slice(from, to),
  readsAsHarm: (words: string) => boolean = () => false,
): Token[] {
  if (!text.includes("://") && !text.includes("w.")) return tokens;
  const links = [...text.matchAll(LINK)];
  if (links.length === 0) return tokens;
  const kept: Token[] = [];
  let k = 0;
  for (const t of tokens) {
    // Both in text order: one pass.
    while (k < links.length && links[k]!.index + links[k]![0].length <= t.start) k++;
    const link = links[k];
    if (link && t.start >= link.index && t.end <= link.index + link[0].length) {
      const hostEnd = link.index + link[0].length - (link.groups?.["path"]?.length ?? 0);
      if (t.end <= hostEnd || t.end - t.start <= 2) continue;
      if (/\d/.test(originalOf(t.start, t.end)) && !readsAsHarm(text.slice(t.start, t.end))) continue;
    }
    kept.push(t);
  }
  return kept;
}
// Read in normalised text, where repeated letters are one: "https" is "htps", "www." is "w.".
const LINK = /\b(?:(?:htps?|ftp):\/\/|w\.)[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?(?<path>[/?#][^\s<>"]*)?/g;

/** How the engine asks about a mention's text (normalised positions; the caller's own characters). */
export interface MentionContext {
  /** Whether the caller's text has an "@" at all (most have not: then nothing else is read). */
  hasAt: boolean;
  /** The caller's characters behind one normalised character (normalisation reads "@" as the letter "a"). */
  originalAt(position: number): string;
  /**
   * Whether words read as harm: a harm lexicon's phrase, or a head's score of the words alone at
   * its flag bar or over. A handle or name so read is kept as words: "@kill_yourself_you_idiot",
   * "u/i-want-to-kill-myself" and leetspeak ("@ss", "@pe") are messages, not names ("@ttack" is
   * lost: neither "atack" nor "tack" reads as harm alone).
   */
  readsAsHarm(words: string): boolean;
}

/**
 * The tokens without @handles and Reddit's u/name and r/name, unless their words read as harm
 * (MentionContext.readsAsHarm). A handle is "@" at the start of a word and two or more letters,
 * digits or underscores (not an email's "@", which follows a letter); both its words ("kil
 * yourself") and its leetspeak reading ("a" + the rest) are checked. Reddit names are read in the
 * normalised text, "/u/name" too.
 */
export function withoutMentions(text: string, tokens: Token[], ctx: MentionContext): Token[] {
  const spans: [number, number][] = [];
  const words = (from: number, to: number): string => text.slice(from, to).replace(/[_-]+/g, " ");
  if (text.includes("/")) {
    for (const m of text.matchAll(REDDIT_NAME)) {
      const end = m.index + m[0].length;
      if (!ctx.readsAsHarm(words(end - m[1]!.length, end))) spans.push([m.index, end]);
    }
  }
  if (ctx.hasAt) {
    for (const t of tokens) {
      if (text[t.start] !== "a" || (t.start > 0 && HANDLE_CHAR.test(text[t.start - 1]!))) continue;
      let end = t.start + 1;
      while (end < text.length && HANDLE_CHAR.test(text[end]!)) end++;
      const at = ctx.originalAt(t.start);
      if (end - t.start < 3 || !at.startsWith("@")) continue;
      // "@kil_you" reads as "akil you" (leetspeak) or "kil you" (the name's words); in "@alice" the
      // "@" and the "a" are one normalised letter, and "alice" is both.
      if (ctx.readsAsHarm(words(t.start, end)) || (at === "@" && ctx.readsAsHarm(words(t.start + 1, end)))) continue;
      spans.push([t.start, end]);
    }
  }
  return tokensOutside(tokens, spans.sort((a, b) => a[0] - b[0]));
}

/** The tokens not wholly inside one of `spans` ([start, end) in the same text, in start order, not overlapping). */
export function tokensOutside(tokens: Token[], spans: readonly (readonly [number, number])[]): Token[] {
  if (spans.length === 0) return tokens;
  let k = 0;
  return tokens.filter((t) => {
    // Both in text order: one pass.
    while (k < spans.length && spans[k]![1] <= t.start) k++;
    const span = spans[k];
    return !(span && t.start >= span[0] && t.end <= span[1]);
  });
}
const REDDIT_NAME = /(?<![a-z0-9_/.-])\/?[ur]\/([a-z0-9_-]{2,})/g;
const HANDLE_CHAR = /[a-z0-9_]/;
