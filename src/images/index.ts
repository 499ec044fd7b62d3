import { anySignal } from "../threads/caller-lane.js";
import type { Verdict } from "../classifiers/classifier.js";
import { ApiError } from "../errors/api-error.js";
import type { DeepAnalysisResult, DeepAnalyzer } from "../providers/deep-analyzer.js";
import { createGuardedAnalyzer } from "../providers/guarded-analyzer.js";
import { createOpenAiCompatibleAnalyzer } from "../providers/openai-compatible.js";
import type { ImageModerationOptions } from "./config.js";
import { imageWorkSignal } from "./call-signal.js";
import { createImageDecoder } from "./decode.js";
import { imageInfo, type DecodedImage, type ImageInfo } from "./decoded-image.js";
import type { ImageClassifier } from "./image-classifier.js";
import { isFlagged, mergeDeepAnalysis } from "./merge.js";
import { createNsfwClassifier, NSFW_MODEL_ID } from "./nsfw-classifier.js";
import { renderForVision } from "./vision-render.js";
import { createNsfwPool, type NsfwPool } from "./worker-pool.js";
import type { Metrics } from "../observability/metrics.js";
import { observeDeepAnalyzer } from "../observability/observe-provider.js";

export { readImageConfig } from "./config.js";
export type { DecodedImage } from "./decoded-image.js";
export type { ImageClassifier } from "./image-classifier.js";
export type { DeepAnalysisResult } from "../providers/deep-analyzer.js";
export { mergeDeepAnalysis } from "./merge.js";

/** Everything the Moderate RPC needs to report for one image item. */
export interface ImageModerationResult {
  image: ImageInfo;
  /** The embedded model's verdict merged with deep analysis (see mergeDeepAnalysis). */
  verdict: Verdict;
  flagged: boolean;
  /** Who judged the item: the embedded model id, then "provider:model" when deep analysis ran. */
  models: string[];
  deepAnalysis?: DeepAnalysisResult;
}

export interface ImageModeration {
  /** Embedded model id, e.g. "nsfwjs-mobilenet_v2@4.3.0". */
  readonly modelId: string;
  /** The configured vision provider, or undefined when analyze_images cannot be served. */
  readonly deepAnalysis: { provider: string; model: string } | undefined;
  /** Parses and decodes a data URI; throws ApiError invalid_image / unsupported_image_type / image_too_large. */
  decode(dataUri: string, signal?: AbortSignal): Promise<DecodedImage>;
  /** Embedded model verdict: `sexual` only. */
  classify(image: DecodedImage, signal?: AbortSignal): Promise<Verdict>;
  /** Throws ApiError deep_analysis_not_configured or deep_analysis_unavailable. */
  deepAnalyze(image: DecodedImage, signal?: AbortSignal): Promise<DeepAnalysisResult>;
  /** Throws deep_analysis_not_configured; call it before any work when a request sets analyze_images. */
  assertDeepAnalysisConfigured(): void;
  /** decode + classify (+ deepAnalyze when asked, in parallel) + merge, for one image item. */
  moderate(dataUri: string, options?: { analyzeImages?: boolean; signal?: AbortSignal }): Promise<ImageModerationResult>;
  close(): Promise<void>;
}

/** Fakes for tests: pass a classifier to skip loading the model, or any DeepAnalyzer. */
interface ImageModerationOverrides {
  classifier?: ImageClassifier;
  /** Used as is (no guard added), so a fake can throw the ApiErrors it wants to test. */
  deepAnalyzer?: DeepAnalyzer;
}

/**
 * Builds the image pipeline: starts the worker pool (rejecting if the model cannot run on the
 * wasm backend) and the guarded vision client when one is configured.
 */
export async function createImageModeration(
  options: ImageModerationOptions,
  overrides: ImageModerationOverrides = {},
  metrics?: Metrics,
): Promise<ImageModeration> {
  const decode = createImageDecoder(options.decode);
  const pooled = overrides.classifier ? undefined : await createPooledClassifier(options);
  const classifier = timeImageClassifier(overrides.classifier ?? pooled!, metrics);
  const provider = options.deepAnalysis ? createOpenAiCompatibleAnalyzer(options.deepAnalysis) : undefined;
  const guarded = provider ? createGuardedAnalyzer(metrics ? observeDeepAnalyzer(provider, metrics) : provider, options.deepAnalysis!.guard) : undefined;
  if (guarded) metrics?.watchCircuit(guarded.provider, () => guarded.circuitState());
  if (pooled) metrics?.watchQueue("image", () => pooled.queueDepth());
  const analyzer = overrides.deepAnalyzer ?? guarded;

  const assertDeepAnalysisConfigured = (): void => {
    if (!analyzer) {
      throw new ApiError(
        "deep_analysis_not_configured",
        "Deep image analysis (analyze_images) is not configured on this server; send the request without analyze_images.",
      );
    }
  };

  const deepAnalyze = async (image: DecodedImage, signal?: AbortSignal): Promise<DeepAnalysisResult> => {
    assertDeepAnalysisConfigured();
    const images = await renderForVision(image, signal);
    return analyzer!.analyze({ images, ...(signal ? { signal } : {}) });
  };

  return {
    modelId: classifier.id,
    deepAnalysis: analyzer ? { provider: analyzer.provider, model: analyzer.model } : undefined,
    decode,
    classify: (image, signal) => classifier.classify(image, signal),
    deepAnalyze,
    assertDeepAnalysisConfigured,
    async moderate(dataUri, { analyzeImages = false, signal: callSignal } = {}) {
      if (analyzeImages) assertDeepAnalysisConfigured();
      // One listener on the call's signal for all its images' frames and model jobs (call-signal.ts).
      const signal = callSignal && imageWorkSignal(callSignal);
      // A call stopped (its caller gone, its deadline past, another item refused) decodes and
      // scores nothing more: such images had been scored to the end, holding the image model
      // while live callers were refused for a full queue.
      if (signal?.aborted) throw callStopped();
      const image = await decode(dataUri, signal).catch((error: unknown) => {
        throw signal?.aborted ? callStopped() : error;
      });
      if (signal?.aborted) throw callStopped();
      // If the embedded model fails, the provider call is abandoned rather than paid for in vain.
      const abandon = new AbortController();
      const deepSignal = anySignal(signal, abandon.signal);
      const deepPromise = analyzeImages ? deepAnalyze(image, deepSignal) : undefined;
      deepPromise?.catch(() => {}); // awaited below; avoid an unhandled rejection while classify runs
      // A model or provider failing because the call was stopped (shutdown) is the call's stop, not their failure.
      const stoppedOr = (error: unknown): unknown => (signal?.aborted ? callStopped() : error);
      let embedded: Verdict;
      try {
        embedded = await classifier.classify(image, signal);
      } catch (error) {
        abandon.abort();
        throw stoppedOr(error);
      }
      const deep = await deepPromise?.catch((error: unknown) => {
        throw stoppedOr(error);
      });
      const verdict = mergeDeepAnalysis(embedded, deep);
      return {
        image: imageInfo(image),
        verdict,
        flagged: isFlagged(verdict),
        models: deep ? [classifier.id, `${deep.provider}:${deep.model}`] : [classifier.id],
        ...(deep ? { deepAnalysis: deep } : {}),
      };
    },
    async close() {
      await classifier.close?.();
    },
  };
}

/**
 * What an image item of a stopped call answers, if anyone is left to read it: a deadline's own
 * answer and a caller gone take precedence, so this reaches only a call stopped by shutdown or by
 * another item's refusal (whose error the call answers first).
 */
function callStopped(): ApiError {
  return new ApiError("service_unavailable", "The call was stopped before its images were scored; retry it.", { headers: { "retry-after": "1" } });
}

/** The classifier, recording each image's time in the metrics (moderation_classifier_seconds{kind="image"}). */
function timeImageClassifier(classifier: ImageClassifier, metrics: Metrics | undefined): ImageClassifier {
  if (!metrics) return classifier;
  return {
    id: classifier.id,
    async classify(image, signal) {
      const started = performance.now();
      const verdict = await classifier.classify(image, signal);
      metrics.imageClassified((performance.now() - started) / 1000);
      return verdict;
    },
    ...(classifier.close ? { close: () => classifier.close!() } : {}),
  };
}

/**
 * `promise`, or the signal's reason as soon as it aborts. The lazy start of the image model (its
 * workers load the model: seconds on a busy machine) cannot be stopped, and a call stopped at the
 * end of the shutdown grace waited for it, past the time its answer had, and was cut unanswered.
 * The start goes on for the next image; this call leaves at once.
 */
function untilStopped<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    promise.then(
      (value) => { signal.removeEventListener("abort", stop); resolve(value); },
      (error: unknown) => { signal.removeEventListener("abort", stop); reject(error); },
    );
  });
}

/** The nsfwjs classifier on its worker pool, started now or on the first image. */
async function createPooledClassifier(options: ImageModerationOptions): Promise<ImageClassifier & { close(): Promise<void>; queueDepth(): number }> {
  const start = (): Promise<NsfwPool> =>
    createNsfwPool({ workers: options.workers, ...(options.maxQueue ? { maxQueue: options.maxQueue } : {}) });
  let pool: Promise<NsfwPool> | undefined = options.modelLoad === "lazy" ? undefined : Promise.resolve(await start());
  let closed = false;
  /** Images handed to the pool and not yet answered (waiting for a worker or running). */
  let depth = 0;
  const ensurePool = (): Promise<NsfwPool> => {
    if (closed) return Promise.reject(new Error("The image model was closed."));
    // A failed lazy start is retried by the next image rather than failing every later one.
    pool ??= start().catch((error: unknown) => {
      pool = undefined;
      throw error;
    });
    return pool;
  };
  return {
    id: NSFW_MODEL_ID,
    async classify(image, signal) {
      depth++;
      try {
        return await createNsfwClassifier(await untilStopped(ensurePool(), signal)).classify(image, signal);
      } finally {
        depth--;
      }
    },
    queueDepth: () => depth,
    async close() {
      closed = true;
      const started = pool;
      pool = undefined;
      await started?.then((p) => p.close(), () => undefined);
    },
  };
}
