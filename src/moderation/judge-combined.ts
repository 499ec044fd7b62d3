import { MAX_TEXT_CODE_POINTS } from "../base/limits.js";
import { CATEGORY_IDS, type CategoryId } from "../classifiers/categories.js";
import type { TextClassifier, Verdict } from "../classifiers/classifier.js";
import { applyPolicy, type CompiledPolicy, type FlagBars, type PolicyVerdict } from "../policies/apply-policy.js";
import type { TextProviderMode } from "../providers/text/config.js";
import { readCombined, type CombinedText } from "./combined-reading.js";
import { embeddedBarsOf, embeddedUnderPolicy } from "./policy-reading.js";
import type { JudgedText, SecondOpinion, SecondOpinionInit } from "./second-opinion.js";

interface CombinedJudgeDeps {
  textClassifier: TextClassifier;
  textProvider?: { secondOpinion: SecondOpinion };
  textFlagBars?: FlagBars;
}

/** The combined layer's verdict under the caller's policy. */
export interface CombinedJudgement {
  verdict: PolicyVerdict;
  /** A guard model judged the whole combined text for every category: nothing of it is left unread. */
  judgedWhole: boolean;
  /**
   * The guard model's answer on the combined text, as an item's second_opinion: seconded, or not
   * (a failed call: the embedded reading stands alone); absent when the text was not sent.
   */
  secondOpinion?: SecondOpinionInit;
}

/**
 * The guard model's judgements of the text items (by request index), once `settled` resolves:
 * what a combined text too long to send cannot flag again.
 */
export interface ItemSecondOpinions {
  settled: Promise<unknown>;
  byIndex: readonly (JudgedText | undefined)[];
}

/**
 * Judges the combined layer as an item is judged: from the embedded model's reading (`verdict`,
 * readCombined in readTexts), under the caller's policy, then under a guard-model mode the same
 * second opinion (cascade: only when unsure; always: always). Without it, a flag the guard
 * cleared on an item came back through the combined layer whenever the request held another text
 * (found by an audit).
 * Tests: test/moderation/combined-layer.test.ts, test/providers/combined-second-opinion-e2e.test.ts.
 */
export function createCombinedJudge(deps: CombinedJudgeDeps) {
  const model = deps.textClassifier.id;
  const bars = deps.textFlagBars;
  return async function judgeCombined(combined: CombinedText, verdict: Verdict, mode: TextProviderMode, policy: CompiledPolicy, signal: AbortSignal | undefined, items: ItemSecondOpinions): Promise<CombinedJudgement> {
    // The text read again without a policy's allowed terms (embeddedUnderPolicy).
    const read = (text: string) => readCombined(combined, (part) => deps.textClassifier.classify(part, signal, policy.classifyOptions), text);
    const byModel = async (reading: Verdict, flagBars = bars) => ({ verdict: await embeddedUnderPolicy(combined.text, reading, read, policy, flagBars), judgedWhole: false });
    if (mode === "off" || !deps.textProvider) return byModel(verdict);
    if (combinedLength(combined) > MAX_TEXT_CODE_POINTS) {
      // Not sent, so no second_opinion: the items' say what the guard model judged of it.
      await items.settled;
      const cleared = clearedOnEveryItem(verdict, combined, items.byIndex);
      return byModel(withoutFlags(verdict, cleared), heldBack(bars, cleared));
    }
    const judged = await deps.textProvider.secondOpinion(combined.text, verdict, model, mode, signal);
    const asked = judged.secondOpinion;
    // Not seconded (the call failed, or judged nothing): the embedded reading, which says so.
    if (!asked?.seconded) return { ...(await byModel(verdict)), ...(asked ? { secondOpinion: asked } : {}) };
    const whole = judged.judgedWhole === true;
    const applied = applyPolicy(judged.verdict, combined.text, policy, { bars: embeddedBarsOf(bars, judged, model) });
    return { verdict: { ...applied, ...(!whole && verdict.notEvaluated ? { notEvaluated: verdict.notEvaluated } : {}) }, judgedWhole: whole, secondOpinion: asked };
  };
}

/**
 * A combined text longer than an item may be (MAX_TEXT_CODE_POINTS) is not sent: that is the
 * most a guard model is asked to read, within every provider's input. Instead it cannot flag a
 * category the guard model judged and cleared on every item it holds: those categories.
 */
function clearedOnEveryItem(verdict: Verdict, combined: CombinedText, judged: readonly (JudgedText | undefined)[]): CategoryId[] {
  return CATEGORY_IDS.filter((c) => verdict.categories[c]?.flagged && combined.items.every(({ index }) => {
    const item = judged[index];
    return item?.guardJudged?.includes(c) === true && item.verdict.categories[c]?.flagged === false;
  }));
}

function withoutFlags(verdict: Verdict, categories: readonly CategoryId[]): Verdict {
  if (categories.length === 0) return verdict;
  const unflagged = { ...verdict, categories: { ...verdict.categories }, explanations: { ...verdict.explanations } };
  for (const c of categories) {
    unflagged.categories[c] = { score: verdict.categories[c]!.score, flagged: false };
    delete unflagged.explanations[c];
  }
  return unflagged;
}

/**
 * Bars of 0 for `categories`: an unflagged score over its bar is held back whatever a policy
 * threshold says (flagsAt), so only the account's block list can flag them again.
 */
function heldBack(bars: FlagBars | undefined, categories: readonly CategoryId[]): FlagBars | undefined {
  if (categories.length === 0) return bars;
  return { ...bars, ...Object.fromEntries(categories.map((c) => [c, 0])) };
}

function combinedLength(combined: CombinedText): number {
  return combined.items[combined.items.length - 1]?.end ?? 0;
}
