import { normalizedCues, questionAfter } from "./context.js";
import { firstTokenAtOrAfter, type Token } from "../../model/features.js";
import { groupStartTokens, negatedClaims } from "./framing.js";
import { CLAIM_FILLERS, COPULAS } from "./group-terms.js";
import type { LexiconHit } from "./lexicon.js";
import { lowerBound } from "../../lower-bound.js";

/**
 * The dehumanising-claim rule: a group term (GROUP_TERMS) followed in the same clause by a
 * dehumanising or exterminationist predicate, with only CLAIM_FILLERS between ("immigrants are
 * vermin", "muslims should be exterminated"). The learned hate head misses many such plain
 * statements held out; a word list of subjects and predicates is explainable and narrow.
 */

const FILLERS = normalizedCues(CLAIM_FILLERS);
const LINKS = normalizedCues(COPULAS);
/** At most this many filler words between group and predicate. */
const MAX_GAP = 5;
const MODALS = normalizedCues(new Set(["should", "must", "need", "deserve", "don't", "dont", "do", "shouldn't", "shouldnt"]));

/** Whether a clause-ending character sits between offsets a and b. */
export function clauseBreak(text: string, a: number, b: number): boolean {
  for (let k = a; k < b; k++) if (",;:.!?\n()\"".includes(text.charAt(k))) return true;
  return false;
}

/**
 * Group claims: one hit per predicate linked to a group, spanning group to predicate, weighted by
 * the predicate. Dropped: questions ("why are immigrants called ...?") and claims under a negated
 * belief verb before the group ("I don't think immigrants are vermin", framing.ts).
 */
export function groupClaims(
  text: string, tokens: readonly Token[], words: readonly string[], groups: readonly LexiconHit[], predicates: readonly LexiconHit[],
  /** Verb-led predicates ("control the media") link to the group without a copula or modal. */
  selfLinking = false,
): LexiconHit[] {
  if (groups.length === 0 || predicates.length === 0) return [];
  const subjects = groups.filter((g) => !objectOfClause(text, tokens, words, g));
  if (subjects.length === 0) return [];
  // Each group with the token after it, by that token: a predicate only looks at the groups that end
  // at most MAX_GAP words before it (trying every group for every predicate took 0.5 s on 100,000
  // characters repeating "muslims are vermin", the combined layer's longest text).
  const after = subjects.map((g, index) => ({ g, index, gi: firstTokenAtOrAfter(tokens, g.end) })).sort((a, b) => a.gi - b.gi);
  const out: LexiconHit[] = [];
  for (const p of predicates) {
    const pi = firstTokenAtOrAfter(tokens, p.start);
    const modal = selfLinking || MODALS.has(words[pi]!);
    // Of the groups that link, the first in the list's order, as the claim's start.
    let best: (typeof after)[number] | undefined;
    for (let k = lowerBound(after.length, (j) => after[j]!.gi < pi - MAX_GAP); k < after.length && after[k]!.gi <= pi; k++) {
      const candidate = after[k]!;
      if (candidate.g.end > p.start || (best && best.index < candidate.index)) continue;
      if (clauseBreak(text, candidate.g.end, p.start) || !linksTo(words, candidate.gi, pi, modal)) continue;
      best = candidate;
    }
    if (!best || questionAfter(text, p.end)) continue;
    out.push({ term: p.term, start: best.g.start, end: p.end, weight: p.weight });
  }
  if (out.length === 0) return out;
  // "not all of the X are ...": a negated quantifier of the group negates the claim.
  const groupStarts = groupStartTokens(tokens, groups);
  return out.filter((h) => negatedClaims(text, tokens, words, [h], groupStarts).length === 0);
}

/** Prepositions that make the group after them an object ("jokes about Muslims are stupid"). Not "of": "half of X are ...". */
const PREPOSITIONS = normalizedCues(new Set([
  "about", "on", "against", "toward", "towards", "at", "for", "with", "to", "by", "from", "among", "into", "onto", "upon", "over", "under",
]));
/** Relative pronouns up to two words before the group ("trolls who harass women are disgusting"). */
const RELATIVES = normalizedCues(new Set(["who", "which", "whom"]));

/**
 * Whether the group is an object, not the subject its predicate speaks of: right after a
 * preposition ("attacks on Jews are disgusting", "laws against gays are evil") or inside a relative
 * clause ("people who say Muslims are dumb are idiots"). Counter-speech says these all day.
 */
function objectOfClause(text: string, tokens: readonly Token[], words: readonly string[], g: LexiconHit): boolean {
  const i = firstTokenAtOrAfter(tokens, g.start);
  for (let k = i - 1; k >= Math.max(0, i - 2); k--) {
    if (clauseBreak(text, tokens[k]!.end, g.start)) return false;
    if (k === i - 1 && PREPOSITIONS.has(words[k]!)) return true;
    // A relative pronoun follows its noun ("trolls who ..."); at the clause's start "who" asks ("Who cares, X are ...").
    if (RELATIVES.has(words[k]!) && k > 0 && !clauseBreak(text, tokens[k - 1]!.end, tokens[k]!.start)) return true;
  }
  return false;
}

/** Only filler words from token gi up to the predicate at pi, and a copula among them unless `modal`. */
function linksTo(words: readonly string[], gi: number, pi: number, modal: boolean): boolean {
  let linked = modal;
  for (; gi < pi; gi++) {
    const w = words[gi]!;
    if (!FILLERS.has(w)) return false;
    if (LINKS.has(w)) linked = true;
  }
  return linked;
}
