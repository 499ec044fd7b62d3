import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/errors/api-error.js";
import { PNG_DATA_URI } from "../api/error-expectations.js";
import { seededRandom } from "../support/seeded-random.js";
import { mutateBytes, pick } from "../support/fuzz-mutations.js";
import { useServerWithKey } from "../support/test-server.js";

// Mutated OpenAI-shaped bodies, the same on every run (seeded): POST /v1/moderations answers a
// signed 200 in OpenAI's shape or a stable client error in OpenAI's error shape, never a 500.

const CASES = 150;
const TIMEOUT_MS = 180_000;

const SEEDS: unknown[] = [
  { model: "omni-moderation-latest", input: "Thanks for the quick reply, see you tomorrow." },
  { input: ["I will find you", "and hurt you"] },
  { input: [{ type: "text", text: "a photo" }, { type: "image_url", image_url: { url: PNG_DATA_URI } }] },
  { input: [{ type: "image_url", image_url: { url: PNG_DATA_URI } }] },
];

const ODD_VALUES: unknown[] = [
  null, true, 0, -1, 3.5, "", " ", "\u0000", "\ud800", "x".repeat(10_001), [], [null], {}, [[[]]], { type: "text" },
  { type: "image_url" }, { type: "image_url", image_url: "data:image/png;base64,AAAA" }, { type: "image_url", image_url: { url: 7 } },
  { type: "image_url", image_url: { url: "https://example.com/a.png" } }, { type: "image_url", image_url: { url: "ftp://x" } },
  "data:image/png;base64,!!!!", Array.from({ length: 11 }, () => "a"), ["a", { type: "text", text: "b" }], { __proto__: null, constructor: 1 },
];
const ODD_FRAGMENTS = ["{", "}", "[", "]", ",", ":", '"', "\\", "null", "1e999", '"\\ud800"', "[".repeat(2000), "\ufeff", "\n", "NaN"];

function mutateStructure(next: () => number, body: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, any>;
  const odd = pick(next, ODD_VALUES);
  const where = Math.floor(next() * 5);
  if (where === 0) copy.input = odd;
  else if (where === 1) copy.model = odd;
  else if (where === 2) copy[pick(next, ["extra", "__proto__", "user", "Input"])] = odd;
  else if (Array.isArray(copy.input) && copy.input.length > 0) {
    const at = Math.floor(next() * copy.input.length);
    const item = copy.input[at];
    if (where === 3 || typeof item !== "object" || item === null) copy.input[at] = odd;
    else if (item.image_url && next() < 0.5) item.image_url[pick(next, ["url", "detail"])] = odd;
    else item[pick(next, ["type", "text", "image_url", "extra"])] = odd;
  }
  return copy;
}

function caseBody(index: number): Uint8Array {
  const next = seededRandom(7000 + index);
  let body = pick(next, SEEDS);
  for (let i = 0, n = 1 + Math.floor(next() * 2); i < n; i++) if (next() < 0.7) body = mutateStructure(next, body);
  let bytes: Uint8Array = new TextEncoder().encode(JSON.stringify(body));
  if (next() < 0.5) for (let i = 0, n = 1 + Math.floor(next() * 3); i < n; i++) bytes = mutateBytes(next, bytes, ODD_FRAGMENTS);
  return bytes;
}

const CLIENT_ERRORS = new Set(Object.keys(ERROR_CODES).filter((code) => code !== "internal_error"));
const file = useServerWithKey();

describe("mutated OpenAI-shaped bodies on POST /v1/moderations", () => {
  it("get a signed 200 or a stable client error in OpenAI's error shape, never a 500", async () => {
    const statuses = new Map<number, number>();
    for (let index = 0; index < CASES; index++) {
      const response = await fetch(`${file.server.httpUrl}/v1/moderations`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${file.key}` },
        body: Buffer.from(caseBody(index)),
      });
      const text = await response.text();
      const label = `case ${index}: ${response.status} ${text.slice(0, 200)}`;
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      expect([200, 400, 413, 415], label).toContain(response.status);
      expect(response.headers.get("signature"), label).toMatch(/^sig1=:/);
      const body = JSON.parse(text);
      if (response.status === 200) {
        expect(Array.isArray(body.results) && body.results.length > 0, label).toBe(true);
        expect(Object.keys(body.results[0].category_scores), label).toHaveLength(13);
      } else {
        expect(Object.keys(body.error).sort(), label).toEqual(["code", "message", "param", "type"]);
        expect(CLIENT_ERRORS.has(body.error.code), label).toBe(true);
        expect(body.error.type, label).toBe("invalid_request_error");
        expect(body.error.message.length, label).toBeGreaterThan(10);
      }
    }
    expect(statuses.get(200) ?? 0).toBeGreaterThan(CASES / 20);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(CASES / 4);
  }, TIMEOUT_MS);
});
