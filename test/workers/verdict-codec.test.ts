import { describe, expect, it } from "vitest";
import type { Verdict } from "../../src/classifiers/classifier.js";
import { decodeVerdict, encodeVerdict } from "../../src/workers/verdict-codec.js";

describe("verdict codec (between threads)", () => {
  it("round-trips scores, flags and explanations, and keeps unevaluated categories absent", () => {
    const verdict: Verdict = {
      categories: {
        harassment: { score: 0.93, flagged: true },
        hate: { score: 0, flagged: false },
        violence_graphic: { score: 1, flagged: true },
        self_harm: { score: 1e-9, flagged: false },
      },
      explanations: {
        harassment: [{ start: 4, end: 10, text: "idiot!", weight: 0.5 }],
        violence_graphic: [{ start: 0, end: 3, text: "🙂é\u200b", weight: 2 }],
      },
    };
    const decoded = decodeVerdict(encodeVerdict(verdict));
    expect(decoded).toEqual(verdict);
    expect("sexual" in decoded.categories).toBe(false);
    expect("hate_threatening" in decoded.categories).toBe(false);
  });

  it("round-trips an empty verdict (nothing evaluated)", () => {
    expect(decodeVerdict(encodeVerdict({ categories: {}, explanations: {} }))).toEqual({ categories: {}, explanations: {} });
  });
});
