import { ConfigError } from "../base/env-values.js";

/** What to do with a request when the rate limit store cannot answer in time. */
export type RateLimitFailureMode = "closed" | "open";

/** The limiter's own settings; which store to use follows REDIS_URL (Config.redisUrl). */
export interface RateLimitConfig {
  /** closed (default): reject with 503 rate_limiter_unavailable. open: let the request through uncounted. */
  failureMode: RateLimitFailureMode;
  /** Longest wait for Redis per request, in ms. */
  timeoutMs: number;
  /** Prefix of the per-account Redis keys. */
  keyPrefix: string;
}

export const RATE_LIMIT_DEFAULTS: RateLimitConfig = {
  failureMode: "closed",
  // Well above a healthy local Redis round trip (well under 1 ms), low enough not to stall callers.
  timeoutMs: 100,
  keyPrefix: "moderation:rate-limit:",
};

/**
 * Reads RATE_LIMIT_FAILURE_MODE, RATE_LIMIT_TIMEOUT_MS and RATE_LIMIT_KEY_PREFIX from a plain env
 * object; throws a ConfigError naming the variable on a bad value.
 */
export function readRateLimitConfig(env: Readonly<Record<string, string | undefined>>): RateLimitConfig {
  return {
    failureMode: readFailureMode(env["RATE_LIMIT_FAILURE_MODE"]),
    timeoutMs: readTimeoutMs(env["RATE_LIMIT_TIMEOUT_MS"]),
    keyPrefix: readKeyPrefix(env["RATE_LIMIT_KEY_PREFIX"]),
  };
}

function present(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === "" ? undefined : trimmed;
}

function readFailureMode(raw: string | undefined): RateLimitFailureMode {
  const value = present(raw)?.toLowerCase() ?? RATE_LIMIT_DEFAULTS.failureMode;
  if (value !== "closed" && value !== "open") {
    throw new ConfigError(`RATE_LIMIT_FAILURE_MODE must be "closed" or "open"; got "${raw}".`);
  }
  return value;
}

function readTimeoutMs(raw: string | undefined): number {
  const value = present(raw);
  if (value === undefined) return RATE_LIMIT_DEFAULTS.timeoutMs;
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 1 || ms > 10_000) {
    throw new ConfigError(`RATE_LIMIT_TIMEOUT_MS must be a whole number of milliseconds from 1 to 10000; got "${value}".`);
  }
  return ms;
}

function readKeyPrefix(raw: string | undefined): string {
  // Taken literally (no trimming); empty means the default, so keys never land at the top level.
  if (raw === undefined || raw === "") return RATE_LIMIT_DEFAULTS.keyPrefix;
  return raw;
}
