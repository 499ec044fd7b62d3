import { describe, expect, it } from "vitest";
import { formatPolicyHeaders, formatRateLimitHeaders } from "../../src/rate-limit/rate-limit-headers.js";

describe("rate limit headers", () => {
  it("formats an allowed request: X-RateLimit-* and the IETF fields, no Retry-After", () => {
    expect(formatRateLimitHeaders({ allowed: true, limit: 60, remaining: 59, resetMs: 60_000, windowMs: 60_000 })).toEqual({
      "X-RateLimit-Limit": "60",
      "X-RateLimit-Remaining": "59",
      "X-RateLimit-Reset": "60",
      "RateLimit-Policy": '"per-minute";q=60;w=60',
      RateLimit: '"per-minute";r=59;t=60',
    });
  });

  it("rounds seconds up, so a client that waits that long is never early", () => {
    const headers = formatRateLimitHeaders({ allowed: false, limit: 10, remaining: 0, resetMs: 1, windowMs: 60_000 });
    expect(headers["X-RateLimit-Reset"]).toBe("1");
    expect(headers["Retry-After"]).toBe("1");
    expect(formatRateLimitHeaders({ allowed: false, limit: 10, remaining: 0, resetMs: 44_001, windowMs: 60_000 })["Retry-After"]).toBe("45");
  });

  it("adds Retry-After to a denied request", () => {
    expect(formatRateLimitHeaders({ allowed: false, limit: 10, remaining: 0, resetMs: 30_000, windowMs: 60_000 })).toEqual({
      "X-RateLimit-Limit": "10",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": "30",
      "RateLimit-Policy": '"per-minute";q=10;w=60',
      RateLimit: '"per-minute";r=0;t=30',
      "Retry-After": "30",
    });
  });

  it("can state the policy alone, for when the store cannot answer", () => {
    expect(formatPolicyHeaders(300, 60_000)).toEqual({ "X-RateLimit-Limit": "300", "RateLimit-Policy": '"per-minute";q=300;w=60' });
  });
});
