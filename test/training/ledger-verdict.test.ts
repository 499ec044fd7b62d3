import { describe, expect, it } from "vitest";
import { EVERYDAY_MESSAGES, failedAcceptanceSentences, PLAIN_HARM } from "../../src/training/acceptance-sentences.js";
import { ledgerVerdict } from "../../src/training/ledger-verdict.js";

describe("the rule ledger's verdict", () => {
  it("reads the held-out datasets first", () => {
    expect(ledgerVerdict(0.01, 0, 0)).toBe("pays");
    expect(ledgerVerdict(0, -0.001, 0)).toBe("pays (fewer false positives)");
    expect(ledgerVerdict(0.01, 0.002, 0)).toBe("trade-off (more recall, more false positives)");
    // The acceptance sentences do not change what the datasets already decided.
    expect(ledgerVerdict(0.01, 0, 3)).toBe("pays");
  });

  it("keeps a family the datasets cannot see only while an acceptance sentence fails without it", () => {
    expect(ledgerVerdict(0.0004, 0.0001, 0)).toBe("no measurable effect: delete");
    expect(ledgerVerdict(0.0004, 0.0001, 1)).toBe("no measurable effect; kept for acceptance");
    expect(ledgerVerdict(-0.002, 0, 2)).toBe("costs; kept for acceptance");
    expect(ledgerVerdict(-0.002, 0, 0)).toBe("costs: delete");
  });
});

describe("failedAcceptanceSentences", () => {
  it("names the everyday messages flagged and the plain harm missed in its expected category", () => {
    const everyday = EVERYDAY_MESSAGES[3]!;
    const [harm, category] = PLAIN_HARM[0]!;
    const flagged = (text: string): string[] => {
      if (text === everyday) return ["violence"];
      if (text === harm) return category === "harassment" ? ["hate"] : ["harassment"]; // flagged, but not as expected
      const expected = PLAIN_HARM.find(([t]) => t === text);
      return expected ? [expected[1]] : [];
    };
    expect(failedAcceptanceSentences(flagged)).toEqual([everyday, harm]);
    expect(failedAcceptanceSentences((text) => PLAIN_HARM.find(([t]) => t === text)?.slice(1) ?? [])).toEqual([]);
  });
});
