import { normalizeForMatching } from "../normalize/normalize.js";
import { firstTokenAtOrAfter, type Token } from "../trained/features.js";
import type { LexiconHit } from "./lexicon.js";
import { INSULT_FILLERS, NEGATIONS, POSSESSIVE, POSSESSIVE_FACTOR, SECOND_PERSON, VOCATIVE_INSULTS } from "./personal-terms.js";

/**
 * Context checks for phrase hits whose meaning depends on the words around them: a self-harm phrase
 * under negation, an insult word that is (or is not) aimed at the reader. Pure functions over the
 * normalised text and its tokens, so they run per text and windows reuse the result.
 */

/** Cue words normalised like the text ("really" -> "realy"), so they compare with tokens as is. */
export const normalizedCues = (set: ReadonlySet<string>): ReadonlySet<string> => new Set([...set].map((w) => normalizeForMatching(w)));
const norm = normalizedCues;
const NEG = norm(NEGATIONS);
const YOU = norm(SECOND_PERSON);
const YOUR = norm(POSSESSIVE);
const FILLER = norm(INSULT_FILLERS);
const LOOKBACK = 3;
const MAX_FILLERS = 5;

/** True when tokens i-1 and i are in the same clause: only spaces or apostrophes between them. */
function joined(text: string, tokens: readonly Token[], i: number): boolean {
  for (let k = tokens[i - 1]!.end; k < tokens[i]!.start; k++) {
    const c = text.charCodeAt(k);
    if (c !== 32 && c !== 39) return false;
  }
  return true;
}

/** Whether a negation word sits up to LOOKBACK words before token i, in the same clause. */
function negatedAt(text: string, tokens: readonly Token[], words: readonly string[], i: number): boolean {
  for (let j = i - 1; j >= Math.max(0, i - LOOKBACK); j--) {
    if (!joined(text, tokens, j + 1)) return false;
    if (NEG.has(words[j]!)) return true;
  }
  return false;
}

/** Drops hits under negation ("I would never kill myself", "I'm not suicidal"). */
export function dropNegated(text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  return hits.filter((h) => !negatedAt(text, tokens, words, firstTokenAtOrAfter(tokens, h.start)));
}

/**
 * Keeps insult hits aimed at the reader: "you" (or "you're", "u", ...) followed, in the same clause,
 * by at most MAX_FILLERS words from INSULT_FILLERS and then the insult ("you are such a stupid
 * idiot", "you moron"). A negation just before "you" ("I'm not calling you an idiot") drops it;
 * possessive "your" counts at a reduced weight. A person insult that is a clause on its own (fillers
 * aside) is a vocative and counts too ("Shut up, idiot.", "Moron!"), while "the author is an idiot"
 * and "idiot drivers" do not.
 */
export function aimedAtReader(text: string, tokens: readonly Token[], words: readonly string[], hits: readonly LexiconHit[]): LexiconHit[] {
  const out: LexiconHit[] = [];
  for (const h of hits) {
    const i = firstTokenAtOrAfter(tokens, h.start);
    // Last token of the hit (phrases such as "piece of shit" span several).
    let last = i;
    while (last + 1 < tokens.length && tokens[last + 1]!.start < h.end) last++;
    const clauseEnds = last + 1 >= tokens.length || !joined(text, tokens, last + 1);
    for (let j = i - 1, fillers = 0; j >= -1 && fillers <= MAX_FILLERS; j--) {
      if (j < 0 || !joined(text, tokens, j + 1)) {
        // A clause that is only the insult (and fillers) is a vocative: "Shut up, idiot." / "Moron!"
        if (clauseEnds && VOCATIVE_INSULTS.has(h.term)) out.push(h);
        break;
      }
      const w = words[j]!;
      if (YOU.has(w) || YOUR.has(w)) {
        if (!negatedAt(text, tokens, words, j)) out.push({ ...h, weight: YOU.has(w) ? h.weight : h.weight * POSSESSIVE_FACTOR });
        break;
      }
      if (!FILLER.has(w)) break;
      fillers++;
    }
  }
  return out;
}

/**
 * Evidence from several phrase hits: noisy-OR over distinct terms, 1 - prod(1 - weight). One plain
 * statement (weight 1) is enough; weaker signs add up ("I hate myself" + "nobody would miss me"),
 * while the same phrase repeated counts once.
 */
export function combinePhrases(hits: readonly LexiconHit[]): number {
  if (hits.length === 0) return 0;
  const best = new Map<string, number>();
  for (const h of hits) best.set(h.term, Math.max(best.get(h.term) ?? 0, h.weight));
  let miss = 1;
  for (const w of best.values()) miss *= 1 - Math.min(1, w);
  return 1 - miss;
}
