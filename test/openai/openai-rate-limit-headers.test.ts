import { describe, expect, it } from "vitest";
import { goDuration, withOpenAiRateLimitNames } from "../../src/http/openai/openai-rate-limit-headers.js";

describe("OpenAI's names for the request budget", () => {
  it("writes a reset as OpenAI's Go-style durations", () => {
    expect([0, 1, 59, 60, 61, 3599, 3600, 3725].map(goDuration)).toEqual(["0s", "1s", "59s", "1m0s", "1m1s", "59m59s", "1h0m0s", "1h2m5s"]);
  });

  it("copies the figures of whichever header set holds them, and adds none it does not find", () => {
    const sets = withOpenAiRateLimitNames([new Headers({ "x-request-id": "r" }), new Headers({ "X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "75" })]);
    const named = sets.at(-1)!;
    expect(Object.fromEntries(named)).toEqual({ "x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1m15s" });
    // Only what is known without the store (its limit) when the limiter could not be asked.
    expect(Object.fromEntries(withOpenAiRateLimitNames([new Headers({ "X-RateLimit-Limit": "10" })]).at(-1)!)).toEqual({ "x-ratelimit-limit-requests": "10" });
  });
});
