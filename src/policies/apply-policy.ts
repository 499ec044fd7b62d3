import { codePointArray } from "../base/code-points.js";
import { CATEGORY_IDS, type CategoryId } from "../classifiers/categories.js";
import type { CategoryVerdict, ClassifyOptions, EvidenceSpan, Verdict } from "../classifiers/classifier.js";
// The most spans the engine gives a category: a full list may leave evidence unshown.
import { MAX_SPANS } from "../classifiers/engine/span-choice.js";
import { CUSTOM_CATEGORY, DEFAULT_POLICY, LIST_SCORE, type BlockCategory, type Policy } from "./policy.js";
import { buildTermMatcher, buildTermMatcherCooperatively, type TermGroups, type TermHit, type TermMatcher } from "./term-matcher.js";

/** A policy ready to apply: its rules with one matcher over both lists, built once per version. */
export interface CompiledPolicy {
  policy: Policy;
  /** Whether applying it can change anything (the default policy cannot). */
  changesFlags: boolean;
  /** Matches block-list terms (indexes 0..blockCount-1), then allow-list terms. */
  matcher: TermMatcher;
  blockCount: number;
  /**
   * What to ask of the text classifier under this policy: its thresholds, so that a category they
   * flag below the model's own bar is explained too (docs/text-model.md: every flagged category
   * is). Classification runs in the compute workers, not where the policy is applied, so the
   * spans are asked for up front; undefined without thresholds, where only the model's flags are
   * explained, as under no policy.
   */
  classifyOptions: ClassifyOptions | undefined;
}

/** A verdict after a policy: the model's categories with the policy's flags, and block-list hits of `custom`. */
export interface PolicyVerdict extends Verdict {
  /** Spans of block-list terms filed under `custom`; absent when none matched. */
  custom?: EvidenceSpan[];
}

/** Per category, the score the model flags at where nothing else decides (the model file's thresholds). */
export type FlagBars = Partial<Record<CategoryId, number>>;

/**
 * Whether a category flags under a policy threshold `t` in place of the model's own bar. Without
 * the bar (images, a classifier that has none), by the score alone. With it, the model's reading
 * is kept on both sides of the bar: a score the model held back over its bar (a negated or
 * counter-speech claim, an insult of a thing) stays held back, and a flag a rule gave under the
 * bar ("and hurt you" at 0.26) stays while the threshold is no higher than the bar. So a higher
 * threshold never adds a flag, a lower one never removes one, and the bar itself changes nothing
 * (by the score alone, hate at 0.9 flagged "Immigrants are not vermin", held back at 0.95).
 */
export function flagsAt(t: number, entry: CategoryVerdict, bar: number | undefined): boolean {
  if (bar === undefined) return entry.score >= t;
  const heldBack = entry.score >= bar && !entry.flagged;
  return (entry.flagged && t <= bar) || (!heldBack && entry.score >= t);
}

/** Weight given to a block-list span: the account's own list, not the model, decided it. */
const LIST_WEIGHT = 1;

/**
 * The most block-list spans one category (or `custom`) of one text shows: the first in the text.
 * One hit flags the category; every hit shown, a list of nested phrases ("ab", "ab ab", ...)
 * against a text repeating them answered 214 MB and held the event loop 8 s.
 */
export const MAX_LIST_SPANS = 10;

export function compilePolicy(policy: Policy): CompiledPolicy {
  return compiledWith(policy, buildTermMatcher(termsOf(policy), { groups: groupsOf(policy) }));
}

/** The same, giving the event loop a turn every few milliseconds (a full list takes 0.1-0.2 s). */
export async function compilePolicyCooperatively(policy: Policy): Promise<CompiledPolicy> {
  return compiledWith(policy, await buildTermMatcherCooperatively(termsOf(policy), { groups: groupsOf(policy) }));
}

const termsOf = (policy: Policy): string[] => [...policy.blockList.map((b) => b.term), ...policy.allowList];

/**
 * The matcher's groups (term-matcher.ts): block terms by category, at most MAX_LIST_SPANS hits
 * each; allow terms one group without a limit (every allowed place is blanked out). Per group
 * the longest term ending at a place stands for the others: its span covers theirs.
 */
function groupsOf(policy: Policy): TermGroups {
  const custom = CATEGORY_IDS.length;
  const allowed = custom + 1;
  const of = new Int32Array(policy.blockList.length + policy.allowList.length).fill(allowed);
  policy.blockList.forEach((b, i) => {
    of[i] = b.category === CUSTOM_CATEGORY ? custom : CATEGORY_IDS.indexOf(b.category);
  });
  const caps = new Int32Array(allowed + 1).fill(MAX_LIST_SPANS);
  caps[allowed] = 0;
  return { of, caps };
}

function compiledWith(policy: Policy, matcher: TermMatcher): CompiledPolicy {
  const explainFrom: Partial<Record<CategoryId, number>> = {};
  for (const id of CATEGORY_IDS) {
    const t = policy.thresholds[id];
    if (typeof t === "number") explainFrom[id] = t;
  }
  return {
    policy,
    changesFlags: policy.blockList.length + policy.allowList.length > 0 || Object.keys(policy.thresholds).length > 0,
    matcher,
    blockCount: policy.blockList.length,
    classifyOptions: Object.keys(explainFrom).length > 0 ? { explainFrom } : undefined,
  };
}

export const DEFAULT_COMPILED_POLICY = compilePolicy(DEFAULT_POLICY);

/** Every list term of the policy in `text` (none for a policy that changes nothing): one matcher pass. */
export function findPolicyTerms(text: string, compiled: CompiledPolicy): TermHit[] {
  return compiled.changesFlags ? compiled.matcher.find(text) : [];
}

/**
 * `text` with every allow-list term in it blanked out (each code point a space, so offsets stay),
 * or undefined when the policy allows nothing there; `hits` are findPolicyTerms'. The model's
 * verdict of it is what the text says without the allowed terms (applyPolicy's `withoutAllowed`).
 */
export function withoutAllowedTerms(text: string, hits: readonly TermHit[], compiled: CompiledPolicy): string | undefined {
  const allowed = hits.filter((hit) => hit.term >= compiled.blockCount);
  if (allowed.length === 0) return undefined;
  const codePoints = codePointArray(text);
  for (const hit of allowed) for (let i = hit.start; i < hit.end; i++) codePoints[i] = " ";
  return codePoints.join("");
}

/**
 * The one place a policy changes an answer: the flags of `verdict` (the model's judgement of
 * `text`) under `compiled`. Scores are never changed, so the same text scores the same for everyone.
 * - A category with a threshold flags by its score (flagsAt); "off" never flags by score.
 * - Allowed terms never count as evidence on their own: a flagged category is not flagged when
 *   the text without them (`withoutAllowed`, the model's verdict of withoutAllowedTerms) would not
 *   be. Without that verdict (a guard model's merged verdict), when every evidence span lies inside
 *   allowed terms and the spans were not cut at MAX_SPANS, the most either text classifier keeps
 *   (other evidence may be unshown).
 * - A block-list hit flags its chosen category (or `custom`), with the matched spans as explanations.
 * `found.hits`, when given, are findPolicyTerms' for `text` (a caller that needed them already).
 */
export function applyPolicy(verdict: Verdict, text: string, compiled: CompiledPolicy, found: { hits?: readonly TermHit[]; withoutAllowed?: Verdict; bars?: FlagBars | undefined } = {}): PolicyVerdict {
  if (!compiled.changesFlags) return verdict;
  const { thresholds, blockList } = compiled.policy;
  const { withoutAllowed, bars } = found;
  const hits = found.hits ?? compiled.matcher.find(text);
  const allowed = hits.filter((hit) => hit.term >= compiled.blockCount);
  const categories: Partial<Record<CategoryId, CategoryVerdict>> = {};
  const explanations: Partial<Record<CategoryId, EvidenceSpan[]>> = { ...verdict.explanations };
  const flagsByScore = (id: CategoryId, entry: CategoryVerdict): boolean => {
    const threshold = thresholds[id];
    return threshold === undefined ? entry.flagged : threshold !== "off" && flagsAt(threshold, entry, bars?.[id]);
  };
  for (const id of CATEGORY_IDS) {
    const entry = verdict.categories[id];
    if (!entry) continue;
    let flagged = flagsByScore(id, entry);
    if (flagged && allowed.length > 0) {
      const without = withoutAllowed?.categories[id];
      const spans = verdict.explanations[id];
      if (withoutAllowed) flagged = without !== undefined && flagsByScore(id, without);
      else if (spans && spans.length > 0 && spans.length < MAX_SPANS && spans.every((span) => allowed.some((a) => a.start <= span.start && span.end <= a.end))) flagged = false;
    }
    categories[id] = { score: entry.score, flagged };
  }
  // Everything else the verdict says (language, what was not evaluated) stands as it is.
  const result: PolicyVerdict = { ...verdict, categories, explanations };
  for (const hit of hits) {
    if (hit.term >= compiled.blockCount) continue;
    const category: BlockCategory = blockList[hit.term]!.category;
    const span: EvidenceSpan = { start: hit.start, end: hit.end, text: hit.text, weight: LIST_WEIGHT };
    if (category === CUSTOM_CATEGORY) {
      result.custom ??= [];
      if (result.custom.length < MAX_LIST_SPANS) result.custom.push(span);
      continue;
    }
    // A category the model did not evaluate (text in a language it does not cover) takes the list's score.
    const entry = categories[category];
    categories[category] = { score: entry?.score ?? LIST_SCORE, flagged: true };
    // The list's spans first: they are why the category is flagged.
    const listed = (explanations[category] = explanations[category] === verdict.explanations[category] ? [] : explanations[category]!);
    if (listed.length < MAX_LIST_SPANS) listed.push(span);
  }
  // Model spans after the list's, for categories the list flagged; a word both found is listed once.
  for (const id of CATEGORY_IDS) {
    const listed = explanations[id];
    if (listed === verdict.explanations[id] || !verdict.explanations[id]) continue;
    for (const span of verdict.explanations[id]!) if (!listed!.some((l) => l.start === span.start && l.end === span.end)) listed!.push(span);
  }
  return result;
}
