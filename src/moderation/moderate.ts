import { laneOf, markLane } from "../threads/caller-lane.js";
import { newId } from "../accounts/ids.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ModerateRequest, ModerateResponseSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { CATEGORY_IDS } from "../classifiers/categories.js";
import type { EvidenceSpan, NotEvaluated, TextClassifier, Verdict } from "../classifiers/classifier.js";
import { precheckDataUri } from "../images/data-uri.js";
import { validateModerateRequest, type ValidItem } from "./validate-request.js";
import { ApiError } from "../errors/api-error.js";
import type { ImageModeration } from "../images/index.js";
import type { TextProviderMode, TextProviderSettings } from "../providers/text/config.js";
import { resolveMode, type JudgedText, type SecondOpinion, type SecondOpinionInit } from "./second-opinion.js";
import { applyPolicy, DEFAULT_COMPILED_POLICY, type CompiledPolicy, type FlagBars, type PolicyVerdict } from "../policies/apply-policy.js";
import { CUSTOM_CATEGORY, LIST_SCORE } from "../policies/policy.js";
import { COMBINED_SEPARATOR, combinedTextOf } from "./combined-reading.js";
import { createCombinedJudge } from "./judge-combined.js";
import { embeddedBarsOf, embeddedUnderPolicy } from "./policy-reading.js";
import { isJudgedApart } from "./separate-inputs.js";

type ModerateResponseInit = MessageInitShape<typeof ModerateResponseSchema>;

interface ModerationDeps {
  textClassifier: TextClassifier;
  /** The image pipeline; without one, image items are validated but reported as not evaluated. */
  images?: ImageModeration;
  /** The guard-model provider's second opinion on text items, with its settings; absent when none is configured. */
  textProvider?: { settings: TextProviderSettings; secondOpinion: SecondOpinion };
  /** The text classifier's own flag bars, so a policy threshold keeps its frames and rules (applyPolicy's flagsAt). */
  textFlagBars?: FlagBars;
}

/** What judgeItem shares with the rest of the request: the items' embedded verdicts in, what the combined layer needs out. */
interface ItemContext {
  embedded: ReadonlyMap<number, Promise<Verdict>>;
  unreadByModel: (NotEvaluated | undefined)[];
  secondOpinions: (JudgedText | undefined)[];
}

/**
 * The Moderate RPC's logic, independent of protocol: validate, judge each item alone,
 * judge the text items together when two or more have text to read, and fold it into one answer.
 */
export function createModerator(deps: ModerationDeps) {
  const bars = deps.textFlagBars;
  const judgeCombined = createCombinedJudge(deps);
  /**
   * `policy` is the caller's (policies/policy-store.ts), applied here to every layer's verdict
   * (applyPolicy: flags only, never scores) before the answer is assembled and later signed; the
   * answer names it. Without one, the model's flags stand and the answer names no policy.
   */
  return async function moderate(request: ModerateRequest, signal?: AbortSignal, policy?: CompiledPolicy): Promise<ModerateResponseInit> {
    const items = validateModerateRequest(request);
    // Check every image's form before any model runs, so a bad item costs nothing.
    const hasImages = items.some((item) => item.type === "image");
    for (const item of items) if (item.type === "image") withItemIndex(item.index, () => precheckDataUri(item.dataUri));
    // Refuse analyze_images up front when it cannot be honoured, rather than skipping it silently.
    if (request.analyzeImages && hasImages) deps.images?.assertDeepAnalysisConfigured();
    const mode = resolveMode(request.textProviderMode, deps.textProvider?.settings);

    const applied = policy ?? DEFAULT_COMPILED_POLICY;
    // The answer is the first failing item's error: the other items' provider calls (second
    // opinions, vision) and images waiting for the image model stop there, rather than run on,
    // paid for, retried and never metered. (Only where an item can: a text-only call of the
    // model alone builds no signals.)
    const stoppable = items.length > 1 && (hasImages || (mode !== "off" && deps.textProvider !== undefined));
    const itemFailed = stoppable ? new AbortController() : undefined;
    const itemSignal = itemFailed ? (signal ? AbortSignal.any([signal, itemFailed.signal]) : itemFailed.signal) : signal;
    // The caller's account, for the queues the items' work waits in (threads/caller-lane.ts).
    if (itemSignal !== signal) markLane(itemSignal, laneOf(signal));
    const stopOthersOnFailure = <T>(judged: Promise<T>): Promise<T> => itemFailed ? judged.catch((error: unknown) => {
      itemFailed.abort();
      throw error;
    }) : judged;
    // The embedded model reads each text item once, for the item and for the combined layer.
    const texts = items.filter((i): i is Extract<ValidItem, { type: "text" }> => i.type === "text");
    const embedded = new Map(texts.map((t) => [t.index, (async () => deps.textClassifier.classify(t.text, itemSignal, applied.classifyOptions))()]));
    // What the embedded model left unread in each text item, even where a guard model then judged
    // it: the combined layer is read by the embedded model first (assembleAnswer).
    const unreadByModel: (NotEvaluated | undefined)[] = [];
    const secondOpinions: (JudgedText | undefined)[] = [];
    const itemsJudged = Promise.all(items.map((item) =>
      stopOthersOnFailure(judgeItem(item, request.analyzeImages, mode, itemSignal, applied, { embedded, unreadByModel, secondOpinions }))));
    const combinedJudged = stopOthersOnFailure((async () => {
      // An array of strings on /v1/moderations is separate inputs: no layer judges them together.
      if (texts.length < 2 || isJudgedApart(request)) return undefined;
      const readings = await Promise.all(texts.map(async (t) => ({ index: t.index, text: t.text, notEvaluated: (await embedded.get(t.index)!).notEvaluated })));
      const combined = combinedTextOf(readings);
      return combined && judgeCombined(combined, mode, applied, itemSignal, { settled: itemsJudged, byIndex: secondOpinions });
    })());
    const [results, combined] = await Promise.all([itemsJudged, combinedJudged]);
    // A guard model that judged the whole combined text for every category left none of it unread.
    const answer = assembleAnswer(newId("modr"), deps.textClassifier.id, results, combined?.verdict, combined?.judgedWhole ? [] : unreadByModel, combined?.secondOpinion);
    return policy ? { ...answer, policy: { id: policy.policy.id, version: policy.policy.version } } : answer;
  };

  async function judgeItem(item: ValidItem, analyzeImages: boolean, mode: TextProviderMode, signal: AbortSignal | undefined, policy: CompiledPolicy, context: ItemContext) {
    if (item.type === "text") {
      const verdict = await context.embedded.get(item.index)!;
      context.unreadByModel[item.index] = verdict.notEvaluated;
      if (mode === "off" || !deps.textProvider) {
        const judged = await embeddedUnderPolicy(item.text, verdict, async (masked) => deps.textClassifier.classify(masked, signal, policy.classifyOptions), policy, bars);
        return textItemResult(item.index, judged, deps.textClassifier.id);
      }
      const judged = await deps.textProvider.secondOpinion(item.text, verdict, deps.textClassifier.id, mode, signal);
      context.secondOpinions[item.index] = judged;
      return {
        index: item.index,
        type: "text",
        models: judged.models,
        ...toCategories(applyPolicy(judged.verdict, item.text, policy, { bars: embeddedBarsOf(bars, judged, deps.textClassifier.id) })),
        ...(judged.secondOpinion ? { secondOpinion: judged.secondOpinion } : {}),
        // The guard model judged, for every category, a text the embedded model left unevaluated:
        // it is evaluated now. One that judges some categories leaves the item's not_evaluated.
        ...languageOf(verdict, judged.judgedWhole === true),
      };
    }
    if (!deps.images) {
      // Without an image model, images are validated but not evaluated: no categories, nothing faked.
      return { index: item.index, type: "image", flagged: false, categories: {}, explanations: [], models: [] };
    }
    const images = deps.images;
    const judged = await withItemIndex(item.index, () => images.moderate(item.dataUri, { analyzeImages, ...(signal ? { signal } : {}) }));
    const deep = judged.deepAnalysis;
    return {
      index: item.index,
      type: "image",
      models: judged.models,
      image: judged.image,
      // Images have no words for the lists to match; thresholds still apply.
      ...toCategories(applyPolicy(judged.verdict, "", policy)),
      ...(deep ? { deepAnalysis: { provider: deep.provider, model: deep.model, reason: deep.reason, categories: toCategories({ categories: deep.categories, explanations: {} }).categories } } : {}),
    };
  }
}

type ItemResultInit = NonNullable<ModerateResponseInit["results"]>[number];

/** A verdict in the response's form: the item's or the combined layer's flag, scores and explanations. */
export interface CategoriesInit {
  flagged: boolean;
  categories: Record<string, { score: number; flagged: boolean }>;
  explanations: { category: string; spans: EvidenceSpan[] }[];
}
/** What the language gate says about a text (src/classifiers/language/): its language, and what was not evaluated. */
export interface LanguageInit {
  language?: string;
  notEvaluated?: NotEvaluated;
}
export type TextItemResultInit = CategoriesInit & { index: number; type: "text"; models: string[] } & LanguageInit;

/** An answer's parts as assembleAnswer puts them together (a ModerateResponse init). */
export interface AnswerInit<R extends ItemResultInit> {
  id: string;
  model: string;
  flagged: boolean;
  results: R[];
  combined?: CategoriesInit & Pick<LanguageInit, "notEvaluated"> & { secondOpinion?: SecondOpinionInit };
  /**
   * Items, and the combined text, the text model did not evaluate, wholly or in part (never to be
   * read as safe); absent when there are none.
   */
  notEvaluated?: { items: ({ index: number } & NotEvaluated)[]; combined?: NotEvaluated };
}

/**
 * The answer from its parts. Shared by every thread that assembles one (see
 * src/workers/worker-answers.ts), so equal parts always make equal answers. `combinedSecondOpinion`:
 * the guard model's answer on the combined text, when it was sent (never on a compute worker's
 * answers, which are the embedded model's alone).
 */
export function assembleAnswer<R extends ItemResultInit>(id: string, model: string, results: R[], combined: Verdict | undefined, unreadByModel?: readonly (NotEvaluated | undefined)[], combinedSecondOpinion?: SecondOpinionInit): AnswerInit<R> {
  const notEvaluated: NonNullable<AnswerInit<R>["notEvaluated"]>["items"] = [];
  for (const r of results) {
    const why = (r as LanguageInit).notEvaluated;
    if (why) notEvaluated.push({ index: r.index ?? 0, reason: why.reason, language: why.language });
  }
  // The combined layer says what it left unevaluated; the language is each item's to report. It
  // holds every text item with text to read, so one the embedded model did not read (wholly or in
  // part; also where a guard model then judged the item: `unreadByModel`, empty where a guard model
  // judged the combined text whole) is a part of it not read either, however the joined text
  // reads ("Ce film est nul, you stupid idiot." beside "have a nice day" read as English joined).
  const combinedResult: AnswerInit<R>["combined"] = combined
    ? { ...toCategories(combined), ...notEvaluatedOf(combined), ...(combinedSecondOpinion ? { secondOpinion: combinedSecondOpinion } : {}) }
    : undefined;
  // An item with no text to read ("!!!") leaves nothing of the joined text unread.
  const unread = (unreadByModel ?? notEvaluated).find((n) => n !== undefined && n.reason !== "no_text");
  if (combinedResult && !combinedResult.notEvaluated && unread) combinedResult.notEvaluated = { reason: "partly_unsupported_language", language: unread.language };
  return {
    id,
    model,
    // The top-level flag reflects both layers: any item alone, or all text items together.
    flagged: results.some((r) => r.flagged) || (combinedResult?.flagged ?? false),
    results,
    ...(combinedResult ? { combined: combinedResult } : {}),
    // The combined layer's too: "je vais" and "te tuer" are each too short to read as French, and
    // their joined text was unread while the top level said nothing (found by an audit).
    ...(notEvaluated.length > 0 || combinedResult?.notEvaluated
      ? { notEvaluated: { items: notEvaluated, ...(combinedResult?.notEvaluated ? { combined: combinedResult.notEvaluated } : {}) } }
      : {}),
  };
}

/** One text item's result. */
export function textItemResult(index: number, verdict: Verdict, model: string): TextItemResultInit {
  return { index, type: "text", models: [model], ...toCategories(verdict), ...languageOf(verdict) };
}

/**
 * A verdict's language and what it left unevaluated, as the response carries them. With
 * `judgedElsewhere` (a guard model gave its verdict on the text), nothing is left unevaluated.
 */
export function languageOf(verdict: Verdict, judgedElsewhere = false): LanguageInit {
  return { ...(verdict.language !== undefined ? { language: verdict.language } : {}), ...(judgedElsewhere ? {} : notEvaluatedOf(verdict)) };
}

function notEvaluatedOf(verdict: Verdict): Pick<LanguageInit, "notEvaluated"> {
  return verdict.notEvaluated ? { notEvaluated: { reason: verdict.notEvaluated.reason, language: verdict.notEvaluated.language } } : {};
}

/**
 * The text the combined layer judges, of the texts of its items: those with text to read, in
 * order (combinedTextOf, which also places each item in it).
 */
export function joinForCombined(texts: string[]): string {
  return texts.join(COMBINED_SEPARATOR);
}

/**
 * Converts a classifier verdict into the response's map form, categories in their fixed order, then
 * `custom` when a policy's block list filed hits under it (src/policies/apply-policy.ts).
 */
function toCategories(verdict: Verdict | PolicyVerdict): CategoriesInit {
  const categories: CategoriesInit["categories"] = {};
  const explanations: CategoriesInit["explanations"] = [];
  let flagged = false;
  for (const id of CATEGORY_IDS) {
    const entry = verdict.categories[id];
    if (!entry) continue;
    categories[id] = { score: entry.score, flagged: entry.flagged };
    flagged ||= entry.flagged;
    const spans = verdict.explanations[id];
    if (entry.flagged && spans && spans.length > 0) explanations.push({ category: id, spans });
  }
  const custom = "custom" in verdict ? verdict.custom : undefined;
  if (custom && custom.length > 0) {
    // Not a model score: a block-list hit is certain.
    categories[CUSTOM_CATEGORY] = { score: LIST_SCORE, flagged: true };
    explanations.push({ category: CUSTOM_CATEGORY, spans: custom });
    flagged = true;
  }
  return { flagged, categories, explanations };
}

/** Runs `work` and, if it refuses the item, says which item: the code stays the pipeline's. */
function withItemIndex<T>(index: number, work: () => T): T {
  const label = (error: unknown) =>
    error instanceof ApiError ? new ApiError(error.code, `input[${index}]: ${error.message}`, { cause: error, headers: error.headers }) : error;
  try {
    const result = work();
    return (result instanceof Promise ? result.catch((error: unknown) => { throw label(error); }) : result) as T;
  } catch (error) {
    throw label(error);
  }
}
