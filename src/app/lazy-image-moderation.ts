import { ApiError } from "../errors/api-error.js";
import { createImageModeration, type ImageModeration, type ImageModerationOptions } from "../images/index.js";

/**
 * Starts the image model's workers on the first image instead of at start-up
 * (IMAGE_MODEL_LOAD=lazy). The test suite uses it so that the many short-lived servers that
 * never see an image do not each load the model; production keeps the default, eager, which
 * proves at start-up that the model runs on the wasm backend.
 */
export function createLazyImageModeration(options: ImageModerationOptions): ImageModeration {
  let real: Promise<ImageModeration> | undefined;
  const load = () => (real ??= createImageModeration(options));
  const deep = options.deepAnalysis;
  const assertDeepAnalysisConfigured = () => {
    if (!deep) {
      throw new ApiError(
        "deep_analysis_not_configured",
        "Deep image analysis (analyze_images) is not configured on this server; send the request without analyze_images.",
      );
    }
  };
  return {
    modelId: "nsfwjs (loads on first image)",
    deepAnalysis: deep ? { provider: deep.providerName ?? "openai-compatible", model: deep.model } : undefined,
    assertDeepAnalysisConfigured,
    decode: async (dataUri) => (await load()).decode(dataUri),
    classify: async (image) => (await load()).classify(image),
    deepAnalyze: async (image, signal) => (await load()).deepAnalyze(image, signal),
    moderate: async (dataUri, moderateOptions) => (await load()).moderate(dataUri, moderateOptions),
    async close() {
      if (real) await (await real).close();
    },
  };
}
