import { anySignal } from "../threads/caller-lane.js";
import { newId } from "../accounts/ids.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ModerateRequest, ModerateResponseSchema } from "../../gen/moderation/v1/moderation_pb.js";
import type { NotEvaluated, TextClassifier, Verdict } from "../classifiers/classifier.js";
import { precheckDataUri } from "../images/data-uri.js";
import { validateModerateRequest, type ValidItem } from "./validate-request.js";
import { ApiError } from "../errors/api-error.js";
import type { ImageModeration } from "../images/index.js";
import type { TextProviderMode, TextProviderSettings } from "../providers/text/config.js";
import { resolveMode, type JudgedText, type SecondOpinion } from "./second-opinion.js";
import { applyPolicy, DEFAULT_COMPILED_POLICY, type CompiledPolicy, type FlagBars } from "../policies/apply-policy.js";
import { assembleAnswer, languageFields, textItemResult, toCategories } from "./assemble-answer.js";
import { createCombinedJudge } from "./judge-combined.js";
import { embeddedBarsOf, embeddedUnderPolicy } from "./policy-reading.js";
import { readTexts } from "./read-texts.js";
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
    // Derived from the caller's, so it keeps the caller's lane in the queues the items' work waits in.
    const itemSignal = itemFailed ? anySignal(signal, itemFailed.signal) : signal;
    const stopOthersOnFailure = <T>(judged: Promise<T>): Promise<T> => itemFailed ? judged.catch((error: unknown) => {
      itemFailed.abort();
      throw error;
    }) : judged;
    // The embedded model reads each text item once, for the item and for the combined layer, as a
    // compute worker does (readTexts). An array of strings on /v1/moderations is separate inputs:
    // no layer judges them together.
    const texts = items.filter((i): i is Extract<ValidItem, { type: "text" }> => i.type === "text");
    const read = readTexts(texts, (text) => deps.textClassifier.classify(text, itemSignal, applied.classifyOptions), !isJudgedApart(request));
    // What the embedded model left unread in each text item, even where a guard model then judged
    // it: the combined layer is read by the embedded model first (assembleAnswer).
    const unreadByModel: (NotEvaluated | undefined)[] = [];
    const secondOpinions: (JudgedText | undefined)[] = [];
    const itemsJudged = Promise.all(items.map((item) =>
      stopOthersOnFailure(judgeItem(item, request.analyzeImages, mode, itemSignal, applied, { embedded: read.verdicts, unreadByModel, secondOpinions }))));
    const combinedJudged = stopOthersOnFailure((async () => {
      const together = await read.combined;
      return together && judgeCombined(together.text, together.verdict, mode, applied, itemSignal, { settled: itemsJudged, byIndex: secondOpinions });
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
        ...languageFields(verdict, judged.judgedWhole === true),
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
