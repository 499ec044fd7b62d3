import { describe, expect, it } from "vitest";
import type { EvidenceSpan, Verdict } from "../../src/classifiers/classifier.js";
import { loadTrainedClassifier } from "../../src/classifiers/engine/index.js";
import { callJson } from "../support/protocol-clients.js";
import { useServerWithKey } from "../support/test-server.js";

// A text whose last token runs past the model's 480-unit window with no space to snap a bound to:
// the second window lies wholly inside that token, and where it decided the flag the category came
// back with no span (audit F3, found by fuzz-moderate.mts seeds 400083 and 800489).
const CASES = [
  { text: `I will ${"stupid".repeat(80)}`, category: "harassment", token: 7 },
  { text: `you ${"myself".repeat(80)}`, category: "self_harm", token: 4 },
  { text: `I will ${"stupid".repeat(1600)}`, category: "harassment", token: 7 },
] as const;

/** Each span lies inside the text (code-point offsets, end exclusive) and its text is the text there. */
function expectSpansInside(text: string, spans: readonly EvidenceSpan[]): void {
  const codePoints = Array.from(text);
  for (const s of spans) {
    expect(s.start).toBeGreaterThanOrEqual(0);
    expect(s.end).toBeGreaterThan(s.start);
    expect(s.end).toBeLessThanOrEqual(codePoints.length);
    expect(s.text).toBe(codePoints.slice(s.start, s.end).join(""));
    expect(s.weight).toBeGreaterThan(0);
  }
}

describe("a flag decided inside one long token is explained by that token", () => {
  const classifier = loadTrainedClassifier();

  it.each(CASES)("$category of $text.length code points", ({ text, category, token }) => {
    const v = classifier.classify(text) as Verdict;
    expect(v.categories[category]?.flagged).toBe(true);
    const spans = v.explanations[category] ?? [];
    expect(spans.length).toBeGreaterThan(0);
    expectSpansInside(text, spans);
    // The long token drives the score; the words before it are function words.
    expect(spans.map((s) => [s.start, s.end])).toEqual([[token, Array.from(text).length]]);
  });
});

describe("over /v1/moderate", () => {
  const server = useServerWithKey();

  it("answers the audit's texts with a span for each flagged category", async () => {
    const out = await callJson(server.server.httpUrl, { input: CASES.map(({ text }) => ({ type: "text", text })) }, server.key);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    CASES.forEach(({ text, category }, i) => {
      const item = out.body.results[i];
      expect(item.categories[category].flagged, `item ${i}`).toBe(true);
      for (const [c, verdict] of Object.entries<{ flagged: boolean }>(item.categories)) {
        if (!verdict.flagged) continue;
        const explained = (item.explanations as { category: string; spans: EvidenceSpan[] }[]).find((e) => e.category === c);
        expect(explained?.spans.length ?? 0, `item ${i} ${c}`).toBeGreaterThan(0);
        expectSpansInside(text, explained!.spans);
      }
    });
  });
});
