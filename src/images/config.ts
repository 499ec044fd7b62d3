import os from "node:os";
import { ConfigError, nonEmpty, readApiKey, readChoice, readHttpUrl, refuseOrphans, type Env } from "../base/env-values.js";
import type { GuardOptions } from "../providers/provider-guard.js";
import type { OpenAiCompatibleOptions } from "../providers/openai-compatible.js";
import { MIN_FRAME_PIXELS } from "./animation-decode-budget.js";
import type { DecodeLimits } from "./decode.js";

export interface DeepAnalysisOptions extends Omit<OpenAiCompatibleOptions, "fetch"> {
  guard?: Partial<GuardOptions>;
}

export interface ImageModerationOptions {
  /** Worker threads running the embedded model. */
  workers: number;
  /**
   * "eager" (default) loads the model while the service starts, so a broken install stops it
   * there; "lazy" waits for the first image (for tests and tools that rarely see one).
   */
  modelLoad?: "eager" | "lazy";
  /** Images allowed to wait for a worker before callers get service_unavailable. */
  maxQueue?: number;
  decode?: Partial<DecodeLimits>;
  /** Absent when no vision provider is configured: analyze_images then fails with deep_analysis_not_configured. */
  deepAnalysis?: DeepAnalysisOptions;
}


/**
 * Reads the image settings from a plain environment object. Every variable is optional; the
 * vision provider is configured by VISION_BASE_URL and VISION_MODEL together.
 */
export function readImageConfig(env: Env): ImageModerationOptions {
  const options: ImageModerationOptions = {
    workers: int(env, "IMAGE_WORKERS", Math.min(2, os.availableParallelism()), 1, 16),
    modelLoad: readChoice(env, "IMAGE_MODEL_LOAD", ["eager", "lazy"], "eager"),
    maxQueue: int(env, "IMAGE_QUEUE_MAX", 64, 1, 10_000),
    decode: {
      maxPixels: int(env, "IMAGE_MAX_PIXELS", 40_000_000, 1, 268_402_689),
      maxFramesSampled: int(env, "IMAGE_MAX_FRAMES_SAMPLED", 4, 1, 16),
      // Unset: the decoder's own default (animation-decode-budget.ts), as for its limits not read here.
      ...(nonEmpty(env.IMAGE_MAX_ANIMATION_DECODE_PIXELS) === undefined
        ? {}
        : { maxAnimationDecodePixels: int(env, "IMAGE_MAX_ANIMATION_DECODE_PIXELS", 0, MIN_FRAME_PIXELS, 10_000_000_000) }),
    },
  };
  const baseUrl = nonEmpty(env.VISION_BASE_URL);
  const model = nonEmpty(env.VISION_MODEL);
  if (baseUrl === undefined && model === undefined) {
    refuseOrphans(env, "VISION_", "VISION_BASE_URL and VISION_MODEL are not: no vision model is configured");
    return options;
  }
  if (baseUrl === undefined || model === undefined) {
    throw new ConfigError("VISION_BASE_URL and VISION_MODEL must be set together to configure deep image analysis.");
  }
  readHttpUrl("VISION_BASE_URL", baseUrl, { apiKey: "VISION_API_KEY", apiVersion: "VISION_API_VERSION" });
  const apiKey = readApiKey(env, "VISION_API_KEY");
  const apiVersion = nonEmpty(env.VISION_API_VERSION);
  const providerName = nonEmpty(env.VISION_PROVIDER_NAME);
  const attemptTimeoutMs = int(env, "VISION_TIMEOUT_MS", 20_000, 100, 600_000);
  options.deepAnalysis = {
    baseUrl,
    model,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(apiVersion === undefined ? {} : { apiVersion }),
    ...(providerName === undefined ? {} : { providerName }),
    apiKeyHeader: readChoice(env, "VISION_API_KEY_HEADER", ["authorization", "api-key"], apiVersion ? "api-key" : "authorization"),
    responseFormat: readChoice(env, "VISION_RESPONSE_FORMAT", ["json_schema", "json_object", "none"], "json_schema"),
    imageDetail: readChoice(env, "VISION_IMAGE_DETAIL", ["low", "high", "auto"], "auto"),
    guard: {
      attemptTimeoutMs,
      totalTimeoutMs: int(env, "VISION_TOTAL_TIMEOUT_MS", Math.max(45_000, attemptTimeoutMs), attemptTimeoutMs, 1_800_000),
      maxRetries: int(env, "VISION_MAX_RETRIES", 2, 0, 5),
      maxConcurrency: int(env, "VISION_MAX_CONCURRENCY", 4, 1, 256),
      maxQueue: int(env, "VISION_QUEUE_MAX", 32, 0, 10_000),
      failureThreshold: int(env, "VISION_CIRCUIT_FAILURES", 5, 1, 1000),
      cooldownMs: int(env, "VISION_CIRCUIT_COOLDOWN_MS", 30_000, 100, 3_600_000),
    },
  };
  return options;
}


function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}; got "${raw}".`);
  }
  return value;
}
