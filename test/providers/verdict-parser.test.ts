import { describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import { ProviderError } from "../../src/providers/provider-error.js";
import { MAX_REASON_LENGTH, parseVisionVerdict } from "../../src/providers/verdict-parser.js";

const zeros = Object.fromEntries(CATEGORY_IDS.map((id) => [id, 0]));

function reject(content: string): ProviderError {
  try {
    parseVisionVerdict(content);
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe("malformed");
    return error as ProviderError;
  }
  throw new Error("expected a malformed verdict");
}

describe("parseVisionVerdict", () => {
  it("reads every category and the reason", () => {
    const parsed = parseVisionVerdict(JSON.stringify({ categories: { ...zeros, sexual_minors: 1, hate: 0.25 }, reason: "  A   short\nreason. " }));
    expect(parsed.scores.sexual_minors).toBe(1);
    expect(parsed.scores.hate).toBe(0.25);
    expect(parsed.reason).toBe("A short reason.");
  });

  it("names what is wrong", () => {
    expect(reject(JSON.stringify({ categories: { ...zeros, violence: undefined }, reason: "" })).message).toContain('category "violence" is missing');
    expect(reject(JSON.stringify({ categories: { ...zeros, sexual: 2 }, reason: "" })).message).toContain('category "sexual" is 2');
    expect(reject(JSON.stringify({ categories: { ...zeros, nudity: 0 }, reason: "" })).message).toContain("unknown categories a text of 6 characters");
    // Keys the model made up are not quoted: they may be the caller's words (these errors are logged).
    expect(reject(JSON.stringify({ categories: zeros, reason: "", note: "hi" })).message).toContain("unexpected keys a text of 4 characters");
  });

  it("rejects a key given twice (JSON.parse would keep the last); a string that looks like keys is none", () => {
    const categories = JSON.stringify(zeros).slice(1, -1);
    expect(reject(`{"categories":{"hate":0.99,${categories}},"reason":"x"}`).message).toContain('"hate" is given twice');
    expect(reject(`{"categories":{${categories}},"reason":"x","reason":"y"}`).message).toContain('"reason" is given twice');
    // Quotes, colons and braces inside a string are no keys.
    const fine = parseVisionVerdict(`{"categories":{${categories}},"reason":"a \\"reason\\": {\\"categories\\": 1}"}`);
    expect(fine.reason).toBe('a "reason": {"categories": 1}');
  });

  it("rejects NaN-like and null scores", () => {
    reject(`{"categories": ${JSON.stringify({ ...zeros, hate: null })}, "reason": ""}`);
    reject(`{"categories": ${JSON.stringify(zeros).replace('"hate":0', '"hate":1e999')}, "reason": ""}`);
  });

  it("accepts one surrounding markdown fence and nothing more", () => {
    const body = JSON.stringify({ categories: zeros, reason: "ok" });
    expect(parseVisionVerdict("```json\n" + body + "\n```").reason).toBe("ok");
    expect(parseVisionVerdict("```\n" + body + "\n```").reason).toBe("ok");
    reject("Verdict:\n```json\n" + body + "\n```");
  });

  it("shortens a long reason", () => {
    const parsed = parseVisionVerdict(JSON.stringify({ categories: zeros, reason: "x".repeat(2000) }));
    expect(parsed.reason).toHaveLength(MAX_REASON_LENGTH);
    expect(parsed.reason.endsWith("…")).toBe(true);
  });
});
