import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config.js";
import { RATE_LIMIT_DEFAULTS, readRateLimitConfig } from "../../src/rate-limit/read-rate-limit-config.js";

describe("readRateLimitConfig", () => {
  it("defaults to failing closed with a 100 ms Redis timeout", () => {
    expect(readRateLimitConfig({})).toEqual({ failureMode: "closed", timeoutMs: 100, keyPrefix: "moderation:rate-limit:" });
    expect(readRateLimitConfig({})).toEqual(RATE_LIMIT_DEFAULTS);
  });

  it("reads every variable", () => {
    expect(
      readRateLimitConfig({ RATE_LIMIT_FAILURE_MODE: " Open ", RATE_LIMIT_TIMEOUT_MS: "50", RATE_LIMIT_KEY_PREFIX: "staging:rl:" }),
    ).toEqual({ failureMode: "open", timeoutMs: 50, keyPrefix: "staging:rl:" });
  });

  it("treats empty values as unset", () => {
    expect(readRateLimitConfig({ RATE_LIMIT_FAILURE_MODE: "", RATE_LIMIT_TIMEOUT_MS: " ", RATE_LIMIT_KEY_PREFIX: "" })).toEqual(
      RATE_LIMIT_DEFAULTS,
    );
  });

  it.each([
    [{ RATE_LIMIT_FAILURE_MODE: "sometimes" }, 'RATE_LIMIT_FAILURE_MODE must be "closed" or "open"; got "sometimes".'],
    [{ RATE_LIMIT_TIMEOUT_MS: "fast" }, 'RATE_LIMIT_TIMEOUT_MS must be a whole number of milliseconds from 1 to 10000; got "fast".'],
    [{ RATE_LIMIT_TIMEOUT_MS: "0" }, 'RATE_LIMIT_TIMEOUT_MS must be a whole number of milliseconds from 1 to 10000; got "0".'],
    [{ RATE_LIMIT_TIMEOUT_MS: "2.5" }, 'RATE_LIMIT_TIMEOUT_MS must be a whole number of milliseconds from 1 to 10000; got "2.5".'],
    [{ RATE_LIMIT_TIMEOUT_MS: "60000" }, 'RATE_LIMIT_TIMEOUT_MS must be a whole number of milliseconds from 1 to 10000; got "60000".'],
  ])("refuses %o with a message naming the variable", (env, message) => {
    expect(() => readRateLimitConfig(env)).toThrow(new ConfigError(message));
    expect(() => readRateLimitConfig(env)).toThrow(ConfigError);
  });
});
