import { normalizedCues, questionAfter } from "./context.js";
import { firstTokenAtOrAfter, type Token } from "../trained/features.js";
import { negatedClaims } from "./framing.js";
import { CLAIM_FILLERS, COPULAS } from "./group-terms.js";
import type { LexiconHit } from "./lexicon.js";

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
  const out: LexiconHit[] = [];
  for (const p of predicates) {
    const pi = firstTokenAtOrAfter(tokens, p.start);
    const modal = selfLinking || MODALS.has(words[pi]!);
    for (const g of groups) {
      if (g.end > p.start) continue;
      let gi = firstTokenAtOrAfter(tokens, g.end);
      if (pi - gi > MAX_GAP || clauseBreak(text, g.end, p.start)) continue;
      let linked = modal;
      let ok = true;
      for (; gi < pi; gi++) {
        const w = words[gi]!;
        if (!FILLERS.has(w)) { ok = false; break; }
        if (LINKS.has(w)) linked = true;
      }
      if (!ok || !linked || questionAfter(text, p.end)) continue;
      out.push({ term: p.term, start: g.start, end: p.end, weight: p.weight });
      break;
    }
  }
  return out.filter((h) => negatedClaims(text, tokens, words, [h]).length === 0);
}
