import { ConfigError, refuseOrphans, nonEmpty, readApiKey, readChoice, readHttpUrl, type Env } from "../../base/env-values.js";
import type { GuardOptions } from "../provider-guard.js";
import { TEXT_PROVIDER_KINDS, type TextProviderKind } from "./text-provider.js";

export const TEXT_PROVIDER_MODES = ["off", "always", "cascade"] as const;
export type TextProviderMode = (typeof TEXT_PROVIDER_MODES)[number];

export interface TextProviderSettings {
  /** The mode a request gets when it names none (TEXT_PROVIDER_MODE). */
  defaultMode: TextProviderMode;
  /** "embedded": answer with the embedded verdict marked as not seconded; "fail": 503 provider_unavailable. */
  onFailure: "embedded" | "fail";
  /** Cascade: an item whose embedded score for some category is in [low, high) goes to the provider. */
  band: { low: number; high: number };
}

export interface TextProviderConfig extends TextProviderSettings {
  kind: TextProviderKind;
  baseUrl: string;
  model: string;
  apiKey: string | undefined;
  /** ShieldGemma: P(Yes) at or above this flags. */
  threshold: number;
  /** json-verdict: how the JSON answer is requested; "none" for servers that reject response_format. */
  responseFormat: "json_schema" | "json_object" | "none";
  guard: Partial<GuardOptions>;
}

/**
 * TEXT_PROVIDER_* : the guard-model provider for text and how it is used. Unset TEXT_PROVIDER
 * means none (and then TEXT_PROVIDER_MODE must be off). docs/providers.md lists every variable.
 */
export function readTextProviderConfig(env: Env): TextProviderConfig | undefined {
  const kindRaw = nonEmpty(env.TEXT_PROVIDER);
  const defaultMode = readChoice(env, "TEXT_PROVIDER_MODE", TEXT_PROVIDER_MODES, "off");
  if (kindRaw === undefined) {
    if (defaultMode !== "off") throw new ConfigError(`TEXT_PROVIDER_MODE=${defaultMode} needs a provider: set TEXT_PROVIDER (${TEXT_PROVIDER_KINDS.join(", ")}).`);
    // TEXT_PROVIDER_MODE=off says what no provider means anyway.
    refuseOrphans(env, "TEXT_PROVIDER_", "TEXT_PROVIDER is not set: no guard model is configured", ["TEXT_PROVIDER_MODE"]);
    return undefined;
  }
  const kind = readChoice(env, "TEXT_PROVIDER", TEXT_PROVIDER_KINDS, "openai-moderation");
  const baseUrl = nonEmpty(env.TEXT_PROVIDER_BASE_URL) ?? (kind === "openai-moderation" ? "https://api.openai.com/v1" : undefined);
  if (baseUrl === undefined) throw new ConfigError(`TEXT_PROVIDER=${kind} needs TEXT_PROVIDER_BASE_URL (e.g. http://localhost:8000/v1 for vLLM, http://localhost:11434/v1 for Ollama).`);
  readHttpUrl("TEXT_PROVIDER_BASE_URL", baseUrl, { apiKey: "TEXT_PROVIDER_API_KEY" });
  const model = nonEmpty(env.TEXT_PROVIDER_MODEL) ?? (kind === "openai-moderation" ? "omni-moderation-latest" : undefined);
  if (model === undefined) throw new ConfigError(`TEXT_PROVIDER=${kind} needs TEXT_PROVIDER_MODEL, the model name the server knows.`);
  const low = fraction(env, "TEXT_PROVIDER_CASCADE_LOW", 0.2);
  const high = fraction(env, "TEXT_PROVIDER_CASCADE_HIGH", 0.8);
  if (!(low < high)) throw new ConfigError(`TEXT_PROVIDER_CASCADE_LOW (${low}) must be below TEXT_PROVIDER_CASCADE_HIGH (${high}).`);
  const attemptTimeoutMs = int(env, "TEXT_PROVIDER_TIMEOUT_MS", 10_000, 50, 600_000);
  return {
    kind,
    baseUrl,
    model,
    apiKey: readApiKey(env, "TEXT_PROVIDER_API_KEY"),
    defaultMode,
    onFailure: readChoice(env, "TEXT_PROVIDER_ON_FAILURE", ["embedded", "fail"], "embedded"),
    band: { low, high },
    threshold: fraction(env, "TEXT_PROVIDER_THRESHOLD", 0.5),
    responseFormat: readChoice(env, "TEXT_PROVIDER_RESPONSE_FORMAT", ["json_schema", "json_object", "none"], "json_schema"),
    guard: {
      attemptTimeoutMs,
      totalTimeoutMs: int(env, "TEXT_PROVIDER_TOTAL_TIMEOUT_MS", Math.max(20_000, attemptTimeoutMs), attemptTimeoutMs, 1_800_000),
      maxRetries: int(env, "TEXT_PROVIDER_MAX_RETRIES", 2, 0, 5),
      maxConcurrency: int(env, "TEXT_PROVIDER_MAX_CONCURRENCY", 8, 1, 256),
      maxQueue: int(env, "TEXT_PROVIDER_QUEUE_MAX", 64, 0, 10_000),
      failureThreshold: int(env, "TEXT_PROVIDER_CIRCUIT_FAILURES", 5, 1, 1000),
      cooldownMs: int(env, "TEXT_PROVIDER_CIRCUIT_COOLDOWN_MS", 30_000, 100, 3_600_000),
    },
  };
}

function fraction(env: Env, name: string, fallback: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d*\.?\d+$/.test(raw) || value < 0 || value > 1) throw new ConfigError(`${name} must be a number from 0 to 1; got "${raw}".`);
  return value;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}; got "${raw}".`);
  return value;
}

