import { describe, expect, it } from "vitest";
import { PlainHeaders } from "../../src/http/plain-headers.js";

// The JSON route's handler context uses PlainHeaders where Connect expects a Headers: it must
// answer the way a Headers does for everything the chain uses.
describe("PlainHeaders", () => {
  it("reads a request's headers as Node parsed them, joining repeated ones and dropping pseudo-headers", () => {
    const headers = PlainHeaders.fromIncoming({ "x-api-key": "k1", "x-forwarded-for": ["a", "b"], ":path": "/v1/moderate", "content-length": undefined });
    expect(headers.get("X-API-Key")).toBe("k1");
    expect(headers.get("x-forwarded-for")).toBe("a, b");
    expect(headers.has(":path")).toBe(false);
    expect(headers.has("content-length")).toBe(false);
    expect(headers.get("missing")).toBeNull();
  });

  it("behaves like Headers for set, append, delete and iteration", () => {
    const plain = new PlainHeaders();
    const real = new Headers();
    for (const h of [plain, real] as Headers[]) {
      h.set("X-RateLimit-Limit", "60");
      h.append("Vary", "a");
      h.append("vary", "b");
      h.set("x-ratelimit-limit", "61");
      h.set("Gone", "1");
      h.delete("GONE");
    }
    const sorted = (h: Headers) => [...h.entries()].sort(([a], [b]) => a.localeCompare(b));
    expect(sorted(plain)).toEqual(sorted(real));
    const seen: string[] = [];
    plain.forEach((value, name) => seen.push(`${name}=${value}`));
    expect(seen.sort()).toEqual(["vary=a, b", "x-ratelimit-limit=61"]);
    expect([...plain.keys()].sort()).toEqual(["vary", "x-ratelimit-limit"]);
    expect([...plain.values()].sort()).toEqual(["61", "a, b"]);
    expect(plain.getSetCookie()).toEqual([]);
  });
});
