import type { CategoryId } from "../classifiers/categories.js";
import type { CategoryVerdict } from "../classifiers/classifier.js";

/** One picture sent to a vision model: a still image or one sampled frame of an animation. */
export interface VisionImage {
  mediaType: "image/jpeg" | "image/png";
  data: Buffer;
}

export interface DeepAnalysisRequest {
  /** The image, or the sampled frames of an animation, in order. */
  images: readonly VisionImage[];
  /** Cancels the analysis (e.g. the caller went away). */
  signal?: AbortSignal;
}

/** A third-party model's verdict on one image item, with who gave it. */
export interface DeepAnalysisResult {
  /** Provider name, e.g. "openai-compatible". */
  provider: string;
  /** Model that answered, as the provider reported it (falls back to the configured name). */
  model: string;
  /** All eleven categories: the vision model is asked to judge every one. */
  categories: Record<CategoryId, CategoryVerdict>;
  /** Short reason given by the model. */
  reason: string;
}

/**
 * Sends an image to a third-party vision model for a verdict over every category. Implementations
 * make one attempt and throw a ProviderError on failure; retries, time limits, the concurrency
 * limit and the circuit breaker are added around any implementation by createGuardedAnalyzer.
 */
export interface DeepAnalyzer {
  readonly provider: string;
  readonly model: string;
  analyze(request: DeepAnalysisRequest): Promise<DeepAnalysisResult>;
}
