import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../../src/config/config.js";

const read = (env: Record<string, string>) => readConfig({ DATA_DIR: "/tmp/unused", ...env }).textProvider;

describe("TEXT_PROVIDER_* settings", () => {
  it("configure nothing by default, and the defaults documented in docs/providers.md when a provider is named", () => {
    expect(read({})).toBeUndefined();
    expect(read({ TEXT_PROVIDER: "openai-moderation", TEXT_PROVIDER_API_KEY: "sk-x" })).toMatchObject({
      kind: "openai-moderation", baseUrl: "https://api.openai.com/v1", model: "omni-moderation-latest", apiKey: "sk-x",
      defaultMode: "off", onFailure: "embedded", band: { low: 0.2, high: 0.8 }, threshold: 0.5,
      guard: { attemptTimeoutMs: 10_000, totalTimeoutMs: 20_000, maxRetries: 2, maxConcurrency: 8, maxQueue: 64, failureThreshold: 5, cooldownMs: 30_000 },
    });
  });

  it("take TEXT_PROVIDER_MODE=off and blank settings without a provider", () => {
    expect(read({ TEXT_PROVIDER_MODE: "off", TEXT_PROVIDER_MODEL: "" })).toBeUndefined();
  });

  it("refuse VISION_* settings without a vision model, naming them", () => {
    expect(() => readConfig({ DATA_DIR: "/tmp/unused", VISION_TIMEOUT_MS: "1000", VISION_API_KEY: "k" })).toThrow(
      /^VISION_API_KEY, VISION_TIMEOUT_MS are set, but VISION_BASE_URL and VISION_MODEL are not: no vision model is configured/,
    );
    expect(readConfig({ DATA_DIR: "/tmp/unused" }).images.deepAnalysis).toBeUndefined();
  });

  it("stop the service with a message naming the variable when something is wrong or missing", () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ TEXT_PROVIDER_MODE: "cascade" }, /TEXT_PROVIDER_MODE=cascade needs a provider: set TEXT_PROVIDER/],
      [{ TEXT_PROVIDER: "llama-guard", TEXT_PROVIDER_MODEL: "m" }, /needs TEXT_PROVIDER_BASE_URL/],
      [{ TEXT_PROVIDER: "shieldgemma", TEXT_PROVIDER_BASE_URL: "http://x/v1" }, /needs TEXT_PROVIDER_MODEL/],
      [{ TEXT_PROVIDER: "granite-guardian" }, /TEXT_PROVIDER must be one of/],
      [{ TEXT_PROVIDER: "openai-moderation", TEXT_PROVIDER_BASE_URL: "file:///etc" }, /TEXT_PROVIDER_BASE_URL must be an http\(s\) URL/],
      [{ TEXT_PROVIDER: "openai-moderation", TEXT_PROVIDER_CASCADE_LOW: "0.9" }, /TEXT_PROVIDER_CASCADE_LOW \(0.9\) must be below/],
      [{ TEXT_PROVIDER: "openai-moderation", TEXT_PROVIDER_THRESHOLD: "1.5" }, /TEXT_PROVIDER_THRESHOLD must be a number from 0 to 1/],
      [{ TEXT_PROVIDER: "openai-moderation", TEXT_PROVIDER_ON_FAILURE: "ignore" }, /TEXT_PROVIDER_ON_FAILURE must be one of embedded, fail/],
      [{ TEXT_PROVIDER: "openai-moderation", TEXT_PROVIDER_MAX_RETRIES: "9" }, /TEXT_PROVIDER_MAX_RETRIES must be an integer from 0 to 5/],
      // A provider's settings without the provider were ignored in silence: the guard model looked configured.
      [{ TEXT_PROVIDER_MODEL: "llama-guard3", TEXT_PROVIDER_BASE_URL: "http://x/v1" }, /^TEXT_PROVIDER_BASE_URL, TEXT_PROVIDER_MODEL are set, but TEXT_PROVIDER is not set: no guard model is configured: unset them/],
      [{ TEXT_PROVIDER_TIMEOUT_MS: "5000" }, /^TEXT_PROVIDER_TIMEOUT_MS is set, but TEXT_PROVIDER is not set/],
    ];
    for (const [env, message] of cases) {
      expect(() => read(env), JSON.stringify(env)).toThrow(ConfigError);
      expect(() => read(env), JSON.stringify(env)).toThrow(message);
    }
  });
});
