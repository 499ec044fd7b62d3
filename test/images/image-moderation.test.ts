import sharp from "sharp";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import type { Verdict } from "../../src/classifiers/classifier.js";
import { ConfigError } from "../../src/config/config.js";
import { ApiError } from "../../src/errors/api-error.js";
import {
  createImageModeration,
  mergeDeepAnalysis,
  readImageConfig,
  type DecodedImage,
  type DeepAnalysisResult,
  type ImageClassifier,
  type ImageModeration,
} from "../../src/images/index.js";
import { NSFW_MODEL_ID } from "../../src/images/nsfw-classifier.js";
import { startFakeOpenAiServer, status, verdict, type FakeOpenAiServer } from "../providers/fake-openai-server.js";
import { animated, dataUri, png } from "./fixtures.js";

/** Stands in for the embedded model; records what it was asked to judge. */
function fakeClassifier(sexual: number): ImageClassifier & { seen: DecodedImage[] } {
  const seen: DecodedImage[] = [];
  return {
    id: "fake-image-model",
    seen,
    async classify(image) {
      seen.push(image);
      return { categories: { sexual: { score: sexual, flagged: sexual >= 0.5 } }, explanations: {} };
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("merge rule", () => {
  const deep = (scores: Partial<Record<(typeof CATEGORY_IDS)[number], number>>): DeepAnalysisResult => ({
    provider: "p",
    model: "m",
    reason: "r",
    categories: Object.fromEntries(CATEGORY_IDS.map((id) => [id, { score: scores[id] ?? 0, flagged: (scores[id] ?? 0) >= 0.5 }])) as DeepAnalysisResult["categories"],
  });
  const embedded = (score: number, flagged: boolean): Verdict => ({ categories: { sexual: { score, flagged } }, explanations: {} });

  it("takes the higher score and flags if either flagged", () => {
    const merged = mergeDeepAnalysis(embedded(0.62, true), deep({ sexual: 0.3, violence: 0.8 }));
    expect(merged.categories.sexual).toEqual({ score: 0.62, flagged: true });
    expect(merged.categories.violence).toEqual({ score: 0.8, flagged: true });
    expect(mergeDeepAnalysis(embedded(0.1, false), deep({ sexual: 0.9 })).categories.sexual).toEqual({ score: 0.9, flagged: true });
  });

  it("reports every category deep analysis judged, and only the embedded ones without it", () => {
    expect(Object.keys(mergeDeepAnalysis(embedded(0.1, false), deep({})).categories)).toEqual([...CATEGORY_IDS]);
    expect(Object.keys(mergeDeepAnalysis(embedded(0.1, false), undefined).categories)).toEqual(["sexual"]);
  });
});

describe("image moderation façade", () => {
  let server: FakeOpenAiServer;
  beforeEach(async () => {
    server = await startFakeOpenAiServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const withProvider = (classifier: ImageClassifier, guard = {}) =>
    createImageModeration(
      { workers: 1, deepAnalysis: { baseUrl: server.baseUrl, model: "vision-test", guard: { maxRetries: 0, backoffBaseMs: 1, ...guard } } },
      { classifier },
    );

  it("without analyze_images: embedded verdict only, image facts, one model", async () => {
    const moderation = await withProvider(fakeClassifier(0.2));
    const result = await moderation.moderate(dataUri("image/png", await png(64, 48)));
    expect(result).toEqual({
      image: { mediaType: "image/png", width: 64, height: 48, frames: 1, framesSampled: 1 },
      verdict: { categories: { sexual: { score: 0.2, flagged: false } }, explanations: {} },
      flagged: false,
      models: ["fake-image-model"],
    });
    expect(server.requests).toHaveLength(0);
  });

  it("with analyze_images: merges the provider's verdict and attributes it", async () => {
    server.enqueue(verdict({ sexual: 0.4, violence_graphic: 0.75 }, "Blood on the floor.", "vision-test-0125"));
    const moderation = await withProvider(fakeClassifier(0.3));
    const result = await moderation.moderate(dataUri("image/png", await png()), { analyzeImages: true });
    expect(result.flagged).toBe(true);
    expect(result.models).toEqual(["fake-image-model", "openai-compatible:vision-test-0125"]);
    expect(result.verdict.categories.sexual).toEqual({ score: 0.4, flagged: false });
    expect(result.verdict.categories.violence_graphic).toEqual({ score: 0.75, flagged: true });
    expect(Object.keys(result.verdict.categories)).toHaveLength(CATEGORY_IDS.length);
    expect(result.deepAnalysis).toMatchObject({ provider: "openai-compatible", model: "vision-test-0125", reason: "Blood on the floor." });
  });

  it("sends the provider an upright JPEG per sampled frame", async () => {
    const moderation = await withProvider(fakeClassifier(0));
    const result = await moderation.moderate(dataUri("image/gif", await animated("gif", 10)), { analyzeImages: true });
    expect(result.image).toEqual({ mediaType: "image/gif", width: 40, height: 30, frames: 10, framesSampled: 4 });
    const images = server.requests[0]?.body.messages[1].content.filter((p: any) => p.type === "image_url");
    expect(images).toHaveLength(4);
    for (const part of images) expect(part.image_url.url).toMatch(/^data:image\/jpeg;base64,\/9j\//);
  });

  it("sends the provider a JPEG the embedded decode accepts with warnings (stray bytes, cut short and closed)", async () => {
    const pattern = Buffer.from(Array.from({ length: 400 * 300 * 3 }, (_, i) => (i * 7919) % 251));
    const whole = await sharp(pattern, { raw: { width: 400, height: 300, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
    const sos = whole.indexOf(Buffer.from([0xff, 0xda]));
    const stray = Buffer.concat([whole.subarray(0, sos), Buffer.from([0, 0]), whole.subarray(sos)]);
    const closed = Buffer.concat([whole.subarray(0, Math.floor(whole.length * 0.6)), Buffer.from([0xff, 0xd9])]);
    const moderation = await withProvider(fakeClassifier(0));
    for (const bytes of [stray, closed]) {
      server.enqueue(verdict({ sexual: 0.1 }, "A pattern.", "vision-test"));
      // Was a plain Error from sharp ("VipsJpeg: Corrupt JPEG data"), answered 500.
      const result = await moderation.moderate(dataUri("image/jpeg", bytes), { analyzeImages: true });
      expect(result.models).toEqual(["fake-image-model", "openai-compatible:vision-test"]);
    }
    expect(server.requests).toHaveLength(2);
  });

  it("analyze_images without a provider is deep_analysis_not_configured, before any decoding", async () => {
    const classifier = fakeClassifier(0);
    const moderation = await createImageModeration({ workers: 1 }, { classifier });
    expect(moderation.deepAnalysis).toBeUndefined();
    const error = await rejection(moderation.moderate("not even a data uri", { analyzeImages: true }));
    expect(error.code).toBe("deep_analysis_not_configured");
    expect(error.httpStatus).toBe(501);
    expect(error.message).toBe(
      "Deep image analysis (analyze_images) is not configured on this server; send the request without analyze_images.",
    );
    expect(() => moderation.assertDeepAnalysisConfigured()).toThrow(ApiError);
    const image = await moderation.decode(dataUri("image/png", await png()));
    expect((await rejection(moderation.deepAnalyze(image))).code).toBe("deep_analysis_not_configured");
    expect(classifier.seen).toHaveLength(0);
  });

  it("a failing provider makes the item fail with deep_analysis_unavailable", async () => {
    server.setDefault(status(502));
    const moderation = await withProvider(fakeClassifier(0));
    const error = await rejection(moderation.moderate(dataUri("image/png", await png()), { analyzeImages: true }));
    expect(error.code).toBe("deep_analysis_unavailable");
    expect(error.httpStatus).toBe(503);
  });

  it("decoding errors surface unchanged", async () => {
    const moderation = await withProvider(fakeClassifier(0));
    const error = await rejection(moderation.moderate("data:image/bmp;base64,Qk0="));
    expect(error.code).toBe("unsupported_image_type");
  });
});

describe("the façade with the real embedded model", () => {
  let moderation: ImageModeration;
  beforeAll(async () => {
    // Lazy: the façade is built without workers; the first image starts them.
    moderation = await createImageModeration(readImageConfig({ IMAGE_WORKERS: "1", IMAGE_MODEL_LOAD: "lazy" }));
  });
  afterAll(async () => {
    await moderation?.close();
  });

  it("judges an image with nsfwjs and reports only sexual", async () => {
    expect(moderation.modelId).toBe(NSFW_MODEL_ID);
    const result = await moderation.moderate(dataUri("image/png", await png(128, 96, "#6b8e23")));
    expect(result.models).toEqual([NSFW_MODEL_ID]);
    expect(Object.keys(result.verdict.categories)).toEqual(["sexual"]);
    expect(result.flagged).toBe(result.verdict.categories.sexual!.flagged);
    const again = await moderation.moderate(dataUri("image/png", await png(128, 96, "#6b8e23")));
    expect(again.verdict).toEqual(result.verdict);
  });
});

describe("readImageConfig", () => {
  it("has defaults and no provider when nothing is set", () => {
    const config = readImageConfig({});
    expect(config.workers).toBeGreaterThanOrEqual(1);
    expect(config.workers).toBeLessThanOrEqual(2);
    expect(config.decode).toEqual({ maxPixels: 40_000_000, maxFramesSampled: 4 });
    expect(config.modelLoad).toBe("eager");
    expect(config.deepAnalysis).toBeUndefined();
  });

  it("reads a full provider configuration", () => {
    const config = readImageConfig({
      IMAGE_WORKERS: "2",
      IMAGE_MAX_FRAMES_SAMPLED: "6",
      VISION_BASE_URL: "https://example.openai.azure.com/openai/deployments/gpt4o",
      VISION_MODEL: "gpt-4o",
      VISION_API_KEY: "secret",
      VISION_API_VERSION: "2024-10-21",
      VISION_PROVIDER_NAME: "azure-openai",
      VISION_TIMEOUT_MS: "5000",
      VISION_MAX_RETRIES: "1",
      VISION_MAX_CONCURRENCY: "8",
      VISION_RESPONSE_FORMAT: "json_object",
    });
    expect(config.workers).toBe(2);
    expect(config.decode?.maxFramesSampled).toBe(6);
    expect(config.deepAnalysis).toMatchObject({
      baseUrl: "https://example.openai.azure.com/openai/deployments/gpt4o",
      model: "gpt-4o",
      apiKey: "secret",
      apiVersion: "2024-10-21",
      apiKeyHeader: "api-key", // Azure's header, implied by the api-version
      providerName: "azure-openai",
      responseFormat: "json_object",
      guard: { attemptTimeoutMs: 5000, maxRetries: 1, maxConcurrency: 8 },
    });
  });

  it("names the variable when a value is wrong", () => {
    expect(() => readImageConfig({ IMAGE_MODEL_LOAD: "later" })).toThrow('IMAGE_MODEL_LOAD must be one of eager, lazy; got "later".');
    expect(() => readImageConfig({ IMAGE_WORKERS: "0" })).toThrow(new ConfigError('IMAGE_WORKERS must be an integer from 1 to 16; got "0".'));
    expect(() => readImageConfig({ VISION_BASE_URL: "http://localhost:11434/v1" })).toThrow(
      "VISION_BASE_URL and VISION_MODEL must be set together to configure deep image analysis.",
    );
    expect(() => readImageConfig({ VISION_BASE_URL: "ftp://x", VISION_MODEL: "m" })).toThrow('VISION_BASE_URL must be an http(s) URL; got "ftp://".');
    // A base URL may carry credentials: the value is never echoed.
    for (const value of ["ftp://user:s3cret@host/v1", "https//user:s3cret@host", "http://[bad"]) {
      expect(() => readImageConfig({ VISION_BASE_URL: value, VISION_MODEL: "m" })).toThrow(ConfigError);
      try {
        readImageConfig({ VISION_BASE_URL: value, VISION_MODEL: "m" });
      } catch (error) {
        expect(String(error)).not.toContain("s3cret");
        expect(String(error)).not.toContain("[bad");
      }
    }
    expect(() => readImageConfig({ VISION_BASE_URL: "http://x", VISION_MODEL: "m", VISION_TIMEOUT_MS: "soon" })).toThrow(ConfigError);
    expect(() => readImageConfig({ VISION_BASE_URL: "http://x", VISION_MODEL: "m", VISION_RESPONSE_FORMAT: "xml" })).toThrow(
      'VISION_RESPONSE_FORMAT must be one of json_schema, json_object, none; got "xml".',
    );
  });
});
