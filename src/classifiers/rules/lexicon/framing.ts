import { normalizedCues } from "./context.js";
import { firstTokenAtOrAfter, type Token } from "../../model/features.js";
import { BELIEF_VERBS, CLAIM_NEGATIONS, HYPERBOLE_CAUSES, HYPERBOLE_MARKERS, IMAGE_STYLE_WORDS, IMPERATIVE_NEGATIONS, NEGATION_BREAKERS, SUGGESTIVE_PAIRS, SUGGESTIVE_WORDS } from "./framing-terms.js";
import { normalizeForMatching } from "../../normalize/normalize.js";
import type { LexiconHit } from "./lexicon.js";
import { lowerBound } from "../../lower-bound.js";

/**
 * Frame checks: whether harmful-looking words are asserted or framed otherwise (negated, reported
 * to be rejected, hyperbole, an everyday sense). Pure functions over the normalised text and its
 * tokens; the engine decides what a frame changes (engine/engine.ts).
 */

const norm = normalizedCues;
const NEG = norm(CLAIM_NEGATIONS);
const BELIEF = norm(BELIEF_VERBS);
/**
 * "can't" before "believe" or "think" is disbelief ("you can't seriously believe that X are ..."); before "say"
 * or "claim" it is the "you can't say X anymore" trope, which asserts the claim.
 */
const DISBELIEF = norm(new Set(["can't", "cant", "cannot", "couldn't", "couldnt"]));
/** Verbs of holding true that "can't" turns into disbelief; not "say" or "claim". */
const DISBELIEVED = norm(new Set(["believe", "think", "accept", "buy", "imagine", "pretend"]));
const BREAKERS = norm(NEGATION_BREAKERS);
const IMPERATIVE = norm(IMPERATIVE_NEGATIONS);
const MARKERS = norm(HYPERBOLE_MARKERS);
const CAUSES = norm(HYPERBOLE_CAUSES);
/** Short negation scope: "are not vermin", "aren't all criminals", "are not really dangerous". */
const NEGATION_REACH = 3;
/** Longer scope through a belief verb: "I don't think those people are criminals". */
const BELIEF_REACH = 7;
/** A negated quantifier of a group reaches as far, over the group: "not all Muslims are terrorists". */
const QUANTIFIERS = norm(new Set(["all", "every", "most", "many"]));

/** Token indices where group hits start: negatedClaims' `groupStarts`. */
export function groupStartTokens(tokens: readonly Token[], groups: readonly LexiconHit[]): ReadonlySet<number> {
  return new Set(groups.map((g) => firstTokenAtOrAfter(tokens, g.start)));
}

/** Whether only the characters in `stops` are absent between offsets a and b. */
function noneBetween(text: string, a: number, b: number, stops: string): boolean {
  for (let k = a; k < b; k++) if (stops.includes(text.charAt(k))) return false;
  return true;
}
const CLAUSE_STOPS = ",;:.!?\n()\"";
const SENTENCE_STOPS = ".!?\n";
/** Same clause: no punctuation that ends a clause between the two tokens. */
const sameClause = (text: string, tokens: readonly Token[], i: number, j: number): boolean =>
  noneBetween(text, tokens[Math.min(i, j)]!.end, tokens[Math.max(i, j)]!.start, CLAUSE_STOPS);

/**
 * Derogatory predicate hits that are negated: a negation up to NEGATION_REACH words before the
 * predicate ("X are not vermin"), or a negated belief verb further back in the same clause ("I
 * don't think X are criminals"), or a negated quantifier of a group there ("not all X are
 * criminals", "not all of the X ..."; `groupStarts`: groupStartTokens of the text's groups; not
 * "it's not all that surprising that X are ..."). Negating a positive word ("X are not human") is not a frame: the
 * hits passed in are derogatory words only.
 */
export function negatedClaims(
  text: string, tokens: readonly Token[], words: readonly string[], predicates: readonly LexiconHit[], groupStarts?: ReadonlySet<number>,
): LexiconHit[] {
  const quantifiesGroup = (q: number): boolean =>
    groupStarts !== undefined && QUANTIFIERS.has(words[q]!) &&
    (groupStarts.has(q + 1) || (words[q + 1] === "of" && words[q + 2] === "the" && groupStarts.has(q + 3)) || (words[q + 1] === "the" && groupStarts.has(q + 2)));
  return predicates.filter((h) => {
    const i = firstTokenAtOrAfter(tokens, h.start);
    let belief = false;
    let heldTrue = false;
    for (let j = i - 1; j >= Math.max(0, i - BELIEF_REACH); j--) {
      if (!sameClause(text, tokens, j, i)) return false;
      const w = words[j]!;
      if (BREAKERS.has(w)) return false;
      // "don't be an idiot": an imperative to the reader.
      if (IMPERATIVE.has(w) && words[j + 1] === "be" && (j === 0 || !sameClause(text, tokens, j - 1, j) || words[j - 1] === "please")) return false;
      if (NEG.has(w) && (i - j <= NEGATION_REACH || belief || quantifiesGroup(j + 1))) return true;
      if (heldTrue && DISBELIEF.has(w)) return true;
      if (BELIEF.has(w)) belief = true;
      if (DISBELIEVED.has(w)) heldTrue = true;
    }
    return false;
  });
}

/** Whether the text quotes something: a pair of straight or curly double quotes. */
export function hasQuotation(text: string): boolean {
  const first = text.indexOf('"');
  if (first >= 0 && text.indexOf('"', first + 1) > first) return true;
  const open = text.indexOf("\u201c");
  return open >= 0 && text.indexOf("\u201d", open + 1) > open;
}

/**
 * Drops self-harm phrase hits that read as hyperbole: an interjection of frustration in the same
 * sentence ("ugh I want to die"), or a trivial cause right after ("kill myself for forgetting my
 * keys", "die of embarrassment"). A bare "I could kill myself" is kept: the counterfactual "could"
 * is also how a real plan is phrased ("I could end it tonight"), so it alone is not enough.
 */
export function dropHyperbole(text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  if (hits.length === 0) return [];
  const markers = markersBySentence(text, tokens, words);
  return hits.filter((h) => !isHyperbole(text, tokens, words, h, markers));
}

/**
 * Per token: the first token of its sentence, the last one, and how many MARKERS words precede it in
 * the text. Counted once per text, so the check per hit is constant time: scanning each hit's sentence
 * took 36 ms on a 10,000-character text repeating one phrase with no full stop.
 */
function markersBySentence(text: string, tokens: readonly Token[], words: readonly string[]) {
  const n = tokens.length;
  const first = new Int32Array(n);
  const last = new Int32Array(n);
  const before = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) {
    first[j] = j > 0 && noneBetween(text, tokens[j - 1]!.end, tokens[j]!.start, SENTENCE_STOPS) ? first[j - 1]! : j;
    before[j + 1] = before[j]! + (MARKERS.has(words[j]!) ? 1 : 0);
  }
  for (let j = n - 1; j >= 0; j--) last[j] = j < n - 1 && first[j + 1] === first[j] ? last[j + 1]! : j;
  return { first, last, before };
}

function isHyperbole(text: string, tokens: readonly Token[], words: readonly string[], h: LexiconHit, m: ReturnType<typeof markersBySentence>): boolean {
  const i = firstTokenAtOrAfter(tokens, h.start);
  let last = i;
  while (last + 1 < tokens.length && tokens[last + 1]!.start < h.end) last++;
  const clauseGap = (j: number): boolean => !noneBetween(text, tokens[j]!.end, tokens[j + 1]!.start, CLAUSE_STOPS);
  // A marker in the hit's sentence before it, or after it (the hit's own words do not count).
  if (m.before[i]! - m.before[m.first[i]!]! > 0) return true;
  if (m.before[m.last[last]! + 1]! - m.before[last + 1]! > 0) return true;
  const next = last + 1 < tokens.length && !clauseGap(last) ? words[last + 1] : undefined;
  const after = next !== undefined && last + 2 < tokens.length && !clauseGap(last + 1) ? words[last + 2] : undefined;
  if (next !== undefined && CAUSES.has(next)) return true;
  if ((next === "for" || next === "over") && after !== undefined && after.length > 4 && after.endsWith("ing")) return true;
  return next === "of" && after !== undefined && CAUSES.has(after);
}

/** Hits of `hits` that do not overlap any hit of `inside` (a nudity word within "nude lipstick"). */
export function outside(hits: readonly LexiconHit[], inside: readonly LexiconHit[]): LexiconHit[] {
  if (inside.length === 0) return [...hits];
  // `inside` in start order with the furthest end so far: a hit overlaps one of them exactly when
  // some hit starting before its end reaches past its start. Comparing every pair was quadratic on
  // a long text repeating "nude lipstick".
  const ordered = [...inside].sort((a, b) => a.start - b.start);
  const furthestEnd: number[] = [];
  for (const x of ordered) furthestEnd.push(Math.max(x.end, furthestEnd[furthestEnd.length - 1] ?? -Infinity));
  return hits.filter((h) => {
    const before = lowerBound(ordered.length, (i) => ordered[i]!.start < h.end);
    return before === 0 || furthestEnd[before - 1]! <= h.start;
  });
}

const IMAGE_STYLE = norm(IMAGE_STYLE_WORDS);
const SUGGESTIVE_EXACT = norm(new Set(SUGGESTIVE_WORDS.filter((w) => !w.endsWith("*"))));
const SUGGESTIVE_STEMS = SUGGESTIVE_WORDS.filter((w) => w.endsWith("*")).map((w) => normalizeForMatching(w.slice(0, -1)));
const SUGGESTIVE_PAIR_SETS = SUGGESTIVE_PAIRS.map(([first, second]) => [norm(new Set(first)), norm(new Set(second))] as const);
const suggestive = (word: string): boolean => SUGGESTIVE_EXACT.has(word) || SUGGESTIVE_STEMS.some((stem) => word.startsWith(stem));
/** Word pairs whose words alone are everyday ("taking a photo", "down a hill"): "taking off", "pulled down", "without clothes". */
const suggestivePair = (words: readonly string[]): boolean =>
  words.some((w, i) => i + 1 < words.length && SUGGESTIVE_PAIR_SETS.some(([first, second]) => first.has(w) && second.has(words[i + 1]!)));

/**
 * Whether the words read as a plain image prompt: an image-style word ("portrait", "studio lighting",
 * "85mm") and no suggestive word or pair (SUGGESTIVE_WORDS, SUGGESTIVE_PAIRS). The engine's
 * plain-image-prompt frame adds the length bound and the absence of nudity and explicit words.
 */
export function imagePromptWords(words: readonly string[]): boolean {
  return words.some((w) => IMAGE_STYLE.has(w)) && !words.some(suggestive) && !suggestivePair(words);
}
