import { CATEGORY_IDS, type CategoryId } from "../classifiers/categories.js";
import type { CategoryVerdict, EvidenceSpan, Verdict } from "../classifiers/classifier.js";
import type { Logger } from "../base/logger.js";
import { ApiError, toApiError } from "../errors/api-error.js";
import { TEXT_PROVIDER_MODES, type TextProviderMode, type TextProviderSettings } from "../providers/text/config.js";
import type { GuardedTextProvider } from "../providers/text/guarded-text-provider.js";

/** Why an item was sent to the provider. */
type Trigger = "always" | "uncertain" | "language";

/**
 * Whether the embedded model covers the language of a text, read from its verdict. The seam the
 * cascade asks; `coveredByEmbeddedModel` is the default.
 */
export type LanguageCoverage = (verdict: Verdict) => { covered: true } | { covered: false; language: string };

/**
 * The default coverage, read from the embedded verdict's language gate
 * (src/classifiers/language/): a text wholly or partly in a language the model does not cover
 * (`notEvaluated`) goes to the guard model, which judges all of it.
 */
const coveredByEmbeddedModel: LanguageCoverage = (verdict) =>
  verdict.notEvaluated ? { covered: false, language: verdict.notEvaluated.language } : { covered: true };

/** The ItemResult.second_opinion (and CombinedResult.second_opinion) init (proto SecondOpinion). */
export interface SecondOpinionInit {
  provider: string;
  model: string;
  trigger: Trigger;
  seconded: boolean;
  errorCode: string;
  categoryModels: Record<string, { models: string[] }>;
}

/** One text item's verdict after the second opinion, with who judged it. */
export interface JudgedText {
  verdict: Verdict;
  models: string[];
  secondOpinion?: SecondOpinionInit;
  /**
   * The guard model read the whole text for every category. Only then is a text the embedded
   * model left partly unread (`notEvaluated`) evaluated: a category the guard model has no
   * counterpart for is still the embedded model's reading of the part it covers.
   */
  judgedWhole?: true;
  /** The categories whose verdict the guard model had a part in (merge rules 2 to 4); set when seconded. */
  guardJudged?: readonly CategoryId[];
}

interface SecondOpinionDeps {
  provider: GuardedTextProvider;
  settings: TextProviderSettings;
  coverage?: LanguageCoverage;
  log?: Logger;
}

export type SecondOpinion = (text: string, embedded: Verdict, embeddedModel: string, mode: TextProviderMode, signal?: AbortSignal) => Promise<JudgedText>;

/**
 * Asks the guard model about a text item when the mode says so, and merges its verdict into the
 * embedded one (mergeVerdicts). When the provider fails, TEXT_PROVIDER_ON_FAILURE decides:
 * "embedded" (default) answers with the embedded verdict, marked not seconded; "fail" fails the
 * whole request with 503 provider_unavailable.
 */
export function createSecondOpinion(deps: SecondOpinionDeps): SecondOpinion {
  const coverage = deps.coverage ?? coveredByEmbeddedModel;
  return async (text, embedded, embeddedModel, mode, signal) => {
    const trigger = triggerFor(mode, embedded, deps.settings.band, coverage);
    if (!trigger) return { verdict: embedded, models: [embeddedModel] };
    const about = { provider: deps.provider.kind, model: deps.provider.id, trigger };
    let opinion: Verdict;
    try {
      opinion = await deps.provider.classify(text, signal);
    } catch (error) {
      const apiError = toApiError(error);
      if (deps.settings.onFailure === "fail" || apiError.code !== "provider_unavailable") throw error;
      deps.log?.warn({ err: apiError.cause ?? apiError, provider: about.provider }, "text provider failed; answering with the embedded verdict");
      return { verdict: embedded, models: [embeddedModel], secondOpinion: { ...about, seconded: false, errorCode: apiError.code, categoryModels: {} } };
    }
    // An answer that judged no category (OpenAI's moderation API, or this service's own, for a
    // language it does not cover) seconds nothing: the item is as if not sent, and says so.
    if (Object.keys(opinion.categories).length === 0) {
      return { verdict: embedded, models: [embeddedModel], secondOpinion: { ...about, seconded: false, errorCode: "", categoryModels: {} } };
    }
    const merged = mergeVerdicts(embedded, opinion, trigger, deps.settings.band);
    const models = [embeddedModel, deps.provider.id];
    const categoryModels: SecondOpinionInit["categoryModels"] = {};
    for (const [category, judge] of Object.entries(merged.judges)) {
      if (judge !== "both") categoryModels[category] = { models: [judge === "embedded" ? embeddedModel : deps.provider.id] };
    }
    const guardJudged = CATEGORY_IDS.filter((c) => merged.judges[c] === "provider" || merged.judges[c] === "both");
    const judgedWhole = guardJudged.length === CATEGORY_IDS.length;
    return { verdict: merged.verdict, models, secondOpinion: { ...about, seconded: true, errorCode: "", categoryModels }, guardJudged, ...(judgedWhole ? { judgedWhole } : {}) };
  };
}

/** Which mode applies: the request's, or the server's default when it names none. */
export function resolveMode(requested: string, settings: TextProviderSettings | undefined): TextProviderMode {
  if (requested === "") return settings?.defaultMode ?? "off";
  if (!(TEXT_PROVIDER_MODES as readonly string[]).includes(requested)) {
    throw new ApiError("invalid_request", `"text_provider_mode" must be "off", "always" or "cascade"; got ${JSON.stringify(requested.slice(0, 40))}.`);
  }
  if (requested !== "off" && !settings) {
    throw new ApiError("provider_not_configured", `text_provider_mode "${requested}" needs a guard-model provider, and none is configured (TEXT_PROVIDER).`);
  }
  return requested as TextProviderMode;
}

/** Whether (and why) an item goes to the provider. A language the embedded model does not cover goes in any mode but off. */
export function triggerFor(mode: TextProviderMode, embedded: Verdict, band: { low: number; high: number }, coverage: LanguageCoverage): Trigger | undefined {
  // Nothing to read ("!!!"): a paid call about nothing, whose verdict would stand beside no_text.
  if (mode === "off" || embedded.notEvaluated?.reason === "no_text") return undefined;
  if (!coverage(embedded).covered) return "language";
  if (mode === "always") return "always";
  return CATEGORY_IDS.some((c) => inBand(embedded.categories[c], band)) ? "uncertain" : undefined;
}

function inBand(entry: CategoryVerdict | undefined, band: { low: number; high: number }): boolean {
  return entry !== undefined && entry.score >= band.low && entry.score < band.high;
}

/**
 * The merge rule, per category (docs/providers.md):
 *   1. the guard model has no counterpart for it: the embedded verdict stands;
 *   2. the embedded model did not evaluate it, or does not cover the text's language: the guard model's;
 *   3. the embedded score is in the uncertain band: the guard model's verdict replaces it;
 *   4. otherwise both are sure: the higher score, flagged if either flags (a sure embedded flag is
 *      never cleared, a guard model's flag never dropped).
 * Evidence spans are the embedded model's and stay only where its flag is part of the answer.
 */
export function mergeVerdicts(embedded: Verdict, provider: Verdict, trigger: Trigger, band: { low: number; high: number }) {
  const categories: Verdict["categories"] = {};
  const explanations: Verdict["explanations"] = {};
  const judges: Partial<Record<CategoryId, "embedded" | "provider" | "both">> = {};
  const keepSpans = (c: CategoryId, spans: EvidenceSpan[] | undefined) => {
    if (spans) explanations[c] = spans;
  };
  for (const c of CATEGORY_IDS) {
    const ours = embedded.categories[c];
    const theirs = provider.categories[c];
    if (!theirs) {
      if (!ours) continue;
      categories[c] = ours;
      judges[c] = "embedded";
      keepSpans(c, embedded.explanations[c]);
    } else if (!ours || trigger === "language" || inBand(ours, band)) {
      categories[c] = { score: theirs.score, flagged: theirs.flagged };
      judges[c] = "provider";
    } else {
      categories[c] = { score: Math.max(ours.score, theirs.score), flagged: ours.flagged || theirs.flagged };
      judges[c] = "both";
      if (ours.flagged) keepSpans(c, embedded.explanations[c]);
    }
  }
  return { verdict: { categories, explanations } satisfies Verdict, judges };
}
