import { normalizedCues, questionAfter } from "./context.js";
import { firstTokenAtOrAfter, type Token } from "../../model/features.js";
import { SUPPORT_BREAKERS, SUPPORT_FILLERS } from "./framing-terms.js";
import { outside } from "./framing.js";
import { clauseBreak } from "./group-claims.js";
import type { CompiledTermList, LexiconHit } from "./lexicon.js";

/**
 * Supportive claims about a named group: the group, then a supportive predicate ("gay people
 * deserve equal rights", "refugees are welcome here"), or a support verb, then the group ("we
 * stand with refugees"), with only SUPPORT_FILLERS between, in one clause that the claim ends
 * ("immigrants are welcome to leave" is no claim of support). A negation is not a filler, so
 * "gay people don't deserve rights" is no supportive claim. Questions are not claims.
 * The engine decides what such a claim changes (policy.ts: the supportive frame).
 */

const FILLERS = normalizedCues(SUPPORT_FILLERS);
const BREAKERS = normalizedCues(SUPPORT_BREAKERS);
/** The supportive frame covers one short statement, not a post in which other sentences may be hateful. */
export const SUPPORT_MAX_WORDS = 25;
/** At most this many filler words between group and predicate, or verb and group. */
const MAX_GAP = 3;

/** Whether at most MAX_GAP filler words, in one clause, lie between offsets `a` and `b`. */
function onlyFillers(text: string, tokens: readonly Token[], words: readonly string[], a: number, b: number): boolean {
  const from = firstTokenAtOrAfter(tokens, a);
  const to = firstTokenAtOrAfter(tokens, b);
  if (to - from > MAX_GAP || clauseBreak(text, a, b)) return false;
  for (let i = from; i < to; i++) if (!FILLERS.has(words[i]!)) return false;
  return true;
}

/**
 * Words that may follow a supportive claim in its clause ("refugees are welcome here too"). Anything
 * else may turn it ("X are welcome in the ovens", "X deserve equal rights to a rope"), so the claim
 * must end its clause.
 */
const TRAILING = normalizedCues(new Set(["here", "too", "also", "as", "well", "everywhere", "always", "today", "now", "forever", "period"]));

/** Whether only TRAILING words follow offset `end` up to the end of its clause. */
function endsClause(text: string, tokens: readonly Token[], words: readonly string[], end: number): boolean {
  for (let i = firstTokenAtOrAfter(tokens, end); i < tokens.length; i++) {
    if (clauseBreak(text, i === 0 ? 0 : tokens[i - 1]!.end, tokens[i]!.start)) return true;
    if (!TRAILING.has(words[i]!)) return false;
  }
  return true;
}

/** One hit per supportive predicate or support verb linked to a group, spanning both. */
function supportiveClaims(
  text: string, tokens: readonly Token[], words: readonly string[],
  groups: readonly LexiconHit[], predicates: readonly LexiconHit[], verbs: readonly LexiconHit[],
): LexiconHit[] {
  if (groups.length === 0) return [];
  const out: LexiconHit[] = [];
  for (const p of predicates) {
    const g = groups.find((g) => g.end <= p.start && onlyFillers(text, tokens, words, g.end, p.start));
    if (g && endsClause(text, tokens, words, p.end) && !questionAfter(text, p.end)) out.push({ term: p.term, start: g.start, end: p.end, weight: p.weight });
  }
  for (const v of verbs) {
    const g = groups.find((g) => g.start >= v.end && onlyFillers(text, tokens, words, v.end, g.start));
    if (g && endsClause(text, tokens, words, g.end) && !questionAfter(text, g.end)) out.push({ term: v.term, start: v.start, end: g.end, weight: v.weight });
  }
  return out;
}

/**
 * The supportive frame: a short text (SUPPORT_MAX_WORDS) whose claims about groups are all
 * supportive, with no harmful evidence of its own. Every group it names is inside a supportive
 * claim ("protect women from trans people" names a second group outside one), no word turns,
 * conditions or negates the statement (SUPPORT_BREAKERS), no derogatory word stands outside the
 * supportive claims, and `harmful` (the engine's insult, threat and group-claim hits) is empty.
 * `groups` are the text's GROUP_TERMS hits; `scanned` its SUPPORTIVE_PREDICATES and DEROGATORY_PREDICATES hits.
 */
export function supportiveFrame(
  text: string, tokens: readonly Token[], words: readonly string[],
  groups: readonly LexiconHit[], harmful: readonly LexiconHit[],
  scanned: { supportive: readonly LexiconHit[]; derogatory: readonly LexiconHit[] },
  lex: { supportVerbs: CompiledTermList },
): boolean {
  if (groups.length === 0 || tokens.length > SUPPORT_MAX_WORDS || harmful.length > 0 || words.some((w) => BREAKERS.has(w))) return false;
  const claims = supportiveClaims(text, tokens, words, groups, scanned.supportive, lex.supportVerbs.scan(text, tokens, words));
  if (claims.length === 0 || outside(groups, claims).length > 0) return false;
  return outside(scanned.derogatory, claims).length === 0;
}
