import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import type { TextClassifier, Verdict } from "../../src/classifiers/classifier.js";
import { createModerator } from "../../src/moderation/moderate.js";
import { createSecondOpinion } from "../../src/moderation/second-opinion.js";
import type { GuardedTextProvider } from "../../src/providers/text/guarded-text-provider.js";

// A combined text is sent to the guard model when it is no longer than an item may be
// (MAX_TEXT_CODE_POINTS, 10,000 code points: judge-combined.ts); the limit itself is allowed, as it
// is for an item. combined-layer.test.ts covers the texts past it. The same scripted models:
// "kill" scores violence 0.56 (uncertain, so cascade sends it), anything else is sure and harmless.

function embeddedModel(): TextClassifier {
  return {
    id: "embedded",
    classify(text: string): Verdict {
      const kill = text.indexOf("kill");
      if (kill < 0) return { categories: { violence: { score: 0.05, flagged: false } }, explanations: {} };
      return { categories: { violence: { score: 0.56, flagged: true } }, explanations: { violence: [{ start: kill, end: kill + 4, text: "kill", weight: 1 }] } };
    },
  };
}

function guardModel(): GuardedTextProvider & { asked: string[] } {
  const asked: string[] = [];
  return {
    kind: "llama-guard", id: "guard", judges: ["violence"], asked,
    circuitState: () => "closed",
    async classify(text) {
      asked.push(text);
      return { categories: { violence: { score: 0, flagged: false } }, explanations: {} };
    },
  };
}

function moderatorWith(guard: GuardedTextProvider) {
  const settings = { defaultMode: "cascade" as const, onFailure: "embedded" as const, band: { low: 0.2, high: 0.8 } };
  return createModerator({ textClassifier: embeddedModel(), textFlagBars: { violence: 0.6 }, textProvider: { settings, secondOpinion: createSecondOpinion({ provider: guard, settings }) } });
}

/** Two items whose combined text (joined by a two-code-point separator) is `length` code points; a non-BMP character in each. */
function itemsJoinedTo(length: number): [string, string] {
  const first = `I will kill \u{1F600} ${"calm ".repeat(1000)}`;
  const firstLength = [...first].length;
  const secondHead = `\u{1F600} kill `;
  const rest = length - 2 - firstLength - [...secondHead].length;
  return [first, secondHead + "x".repeat(rest)];
}

const request = (texts: string[]) => create(ModerateRequestSchema, { input: texts.map((text) => ({ type: "text", text })) });
const codePoints = (text: string) => [...text].length;

describe("a combined text of exactly 10,000 code points", () => {
  it("is sent to the guard model", async () => {
    const guard = guardModel();
    const items = itemsJoinedTo(10_000);
    expect(codePoints(items.join("\n\n"))).toBe(10_000);
    const answer = await moderatorWith(guard)(request(items));
    expect(guard.asked.map(codePoints)).toContain(10_000);
    expect(answer.combined?.secondOpinion).toMatchObject({ seconded: true });
  });

  it("while one of 10,001 is not", async () => {
    const guard = guardModel();
    const answer = await moderatorWith(guard)(request(itemsJoinedTo(10_001)));
    expect(guard.asked.map(codePoints)).not.toContain(10_001);
    expect(answer.combined?.secondOpinion).toBeUndefined();
  });
});
