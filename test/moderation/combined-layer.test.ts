import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import type { TextClassifier, Verdict } from "../../src/classifiers/classifier.js";
import { ApiError } from "../../src/errors/api-error.js";
import { createModerator } from "../../src/moderation/moderate.js";
import { createSecondOpinion } from "../../src/moderation/second-opinion.js";
import { judgeApart } from "../../src/moderation/separate-inputs.js";
import { compilePolicy } from "../../src/policies/apply-policy.js";
import { validatePolicyRules } from "../../src/policies/policy.js";
import type { GuardedTextProvider } from "../../src/providers/text/guarded-text-provider.js";

/**
 * The combined layer through createModerator, with a scripted embedded model: "kill" scores
 * violence 0.56, in the uncertain band [0.2, 0.8), flagged by a rule under the bar (0.6);
 * "   " has nothing to read; any other text is sure and harmless.
 */
function embeddedModel(): TextClassifier & { read: string[] } {
  const read: string[] = [];
  return {
    id: "embedded",
    read,
    classify(text: string): Verdict {
      read.push(text);
      if (text.trim() === "") return { categories: {}, explanations: {}, language: "und", notEvaluated: { reason: "no_text", language: "und" } };
      const kill = text.indexOf("kill");
      if (kill < 0) return { categories: { violence: { score: 0.05, flagged: false }, harassment: { score: 0.02, flagged: false } }, explanations: {} };
      return {
        categories: { violence: { score: 0.56, flagged: true }, harassment: { score: 0.02, flagged: false } },
        explanations: { violence: [{ start: kill, end: kill + 4, text: "kill", weight: 1 }] },
      };
    },
  };
}

/** A guard model like Llama Guard: it judges violence (not harassment); `answer` is its verdict of every text. */
function guardModel(answer: Verdict | ApiError = { categories: { violence: { score: 0, flagged: false } }, explanations: {} }): GuardedTextProvider & { asked: string[] } {
  const asked: string[] = [];
  return {
    kind: "llama-guard", id: "guard", judges: ["violence"], asked,
    circuitState: () => "closed",
    async classify(text) {
      asked.push(text);
      if (answer instanceof ApiError) throw answer;
      return answer;
    },
  };
}

const BAND = { low: 0.2, high: 0.8 };
function moderatorWith(guard?: GuardedTextProvider, mode: "cascade" | "always" = "cascade") {
  const textClassifier = embeddedModel();
  const settings = { defaultMode: mode, onFailure: "embedded" as const, band: BAND };
  const moderate = createModerator({
    textClassifier,
    textFlagBars: { violence: 0.6, harassment: 0.5 },
    ...(guard ? { textProvider: { settings, secondOpinion: createSecondOpinion({ provider: guard, settings }) } } : {}),
  });
  return { moderate, textClassifier };
}
const request = (...texts: string[]) => create(ModerateRequestSchema, { input: texts.map((text) => ({ type: "text", text })) });
const categoriesOf = (layer: unknown) => (layer as { categories: Record<string, { score: number; flagged: boolean }> }).categories;

describe("the combined layer holds only items with text to read", () => {
  it("is absent when one item has text and the other none, and costs no model pass", async () => {
    const { moderate, textClassifier } = moderatorWith();
    const answer = await moderate(request("I will kill", "   "));
    expect(answer.combined).toBeUndefined();
    expect(textClassifier.read).toEqual(["I will kill", "   "]);
    // The item alone decides the answer, as with one text.
    expect(answer.flagged).toBe(true);
  });

  it("joins the items with text, leaving out those without", async () => {
    const { moderate, textClassifier } = moderatorWith();
    const answer = await moderate(request("I will", "   ", "kill"));
    expect(textClassifier.read).toContain("I will\n\nkill");
    expect(answer.combined?.explanations).toEqual([{ category: "violence", spans: [{ start: 8, end: 12, text: "kill", weight: 1 }] }]);
  });

  it("is not judged at all for separate inputs (OpenAI's array of strings)", async () => {
    const { moderate, textClassifier } = moderatorWith();
    const answer = await moderate(judgeApart(request("I will", "kill")));
    expect(answer.combined).toBeUndefined();
    expect(textClassifier.read).toEqual(["I will", "kill"]);
  });
});

describe("the combined layer under a guard model", () => {
  it("cascade: an unsure combined text goes to the guard model, which clears it as it cleared the item", async () => {
    const guard = guardModel();
    const { moderate } = moderatorWith(guard, "cascade");
    const answer = await moderate(request("I will kill", "tonight"));
    expect(guard.asked.sort()).toEqual(["I will kill", "I will kill\n\ntonight"]);
    expect(categoriesOf(answer.results![0]).violence).toEqual({ score: 0, flagged: false });
    expect(categoriesOf(answer.combined).violence).toEqual({ score: 0, flagged: false });
    // The guard has no counterpart for harassment: the embedded model's reading stands.
    expect(categoriesOf(answer.combined).harassment).toEqual({ score: 0.02, flagged: false });
    expect(answer.flagged).toBe(false);
    // It says so as an item does, harassment being the embedded model's alone.
    expect(answer.combined?.secondOpinion).toEqual({
      provider: "llama-guard", model: "guard", trigger: "uncertain", seconded: true, errorCode: "", categoryModels: { violence: { models: ["guard"] }, harassment: { models: ["embedded"] } },
    });
  });

  it("cascade: a sure combined text is not sent; always: it is", async () => {
    const cascade = guardModel();
    const sure = await moderatorWith(cascade, "cascade").moderate(request("hello", "there"));
    expect(cascade.asked).toEqual([]);
    expect(sure.combined?.secondOpinion).toBeUndefined();
    const always = guardModel();
    const sent = await moderatorWith(always, "always").moderate(request("hello", "there"));
    expect(always.asked.sort()).toEqual(["hello", "hello\n\nthere", "there"]);
    expect(sent.combined?.secondOpinion).toMatchObject({ trigger: "always", seconded: true });
  });

  it("a guard model that fails leaves the embedded reading (TEXT_PROVIDER_ON_FAILURE=embedded)", async () => {
    const guard = guardModel(new ApiError("provider_unavailable", "down"));
    const answer = await moderatorWith(guard).moderate(request("I will kill", "tonight"));
    expect(categoriesOf(answer.combined).violence).toEqual({ score: 0.56, flagged: true });
    // The flag is the embedded model's alone, and the layer says its second opinion failed.
    expect(answer.combined?.secondOpinion).toEqual({ provider: "llama-guard", model: "guard", trigger: "uncertain", seconded: false, errorCode: "provider_unavailable", categoryModels: {} });
  });

  it("a mode off call sends nothing and the layer has no second opinion", async () => {
    const guard = guardModel();
    const answer = await moderatorWith(guard).moderate(create(ModerateRequestSchema, { input: [{ type: "text", text: "I will kill" }, { type: "text", text: "tonight" }], textProviderMode: "off" }));
    expect(guard.asked).toEqual([]);
    expect(answer.combined && "secondOpinion" in answer.combined).toBe(false);
  });

  describe("a combined text longer than an item may be (10,000 code points), which is not sent", () => {
    const pad = "calm words ".repeat(550);
    it("cannot flag a category the guard model cleared on every item it holds", async () => {
      const guard = guardModel();
      const { moderate } = moderatorWith(guard);
      const answer = await moderate(request(`I will kill ${pad}`, `${pad} kill`));
      expect(guard.asked).toHaveLength(2);
      expect(Math.max(...guard.asked.map((text) => text.length))).toBeLessThanOrEqual(10_000);
      expect(categoriesOf(answer.combined).violence).toEqual({ score: 0.56, flagged: false });
      expect(answer.combined!.explanations).toEqual([]);
      expect(answer.flagged).toBe(false);
      // Not sent: no second opinion of its own; the items' say the guard model cleared violence.
      expect(answer.combined?.secondOpinion).toBeUndefined();
      expect(answer.results!.map((r) => (r as { secondOpinion?: { seconded: boolean } }).secondOpinion?.seconded)).toEqual([true, true]);
      // A policy threshold does not bring the flag back; the account's own block list does.
      const lowered = compilePolicy({ id: "pol", version: 1, ...validatePolicyRules({ thresholds: { violence: 0.3 } }) });
      expect(categoriesOf((await moderate(request(`I will kill ${pad}`, `${pad} kill`), undefined, lowered)).combined).violence!.flagged).toBe(false);
      const blocked = compilePolicy({ id: "pol", version: 2, ...validatePolicyRules({ blockList: [{ term: "will kill", category: "violence" }] }) });
      expect(categoriesOf((await moderate(request(`I will kill ${pad}`, `${pad} kill`), undefined, blocked)).combined).violence!.flagged).toBe(true);
    });

    it("keeps a flag where some item was not sent to the guard model", async () => {
      const guard = guardModel();
      const answer = await moderatorWith(guard).moderate(request(`I will kill ${pad}`, `${pad} and more`, "kill"));
      expect(categoriesOf(answer.combined).violence).toEqual({ score: 0.56, flagged: true });
    });
  });
});

/** Two items whose combined text (joined by a two-code-point separator) is `length` code points; a non-BMP character in each. */
function itemsJoinedTo(length: number): [string, string] {
  const first = `I will kill \u{1F600} ${"calm ".repeat(1000)}`;
  const secondHead = `\u{1F600} kill `;
  const rest = length - 2 - [...first].length - [...secondHead].length;
  return [first, secondHead + "x".repeat(rest)];
}
const codePoints = (text: string) => [...text].length;

// A combined text goes to the guard model when it is no longer than an item may be
// (MAX_TEXT_CODE_POINTS, 10,000 code points: judge-combined.ts); the limit itself is allowed.
describe("a combined text of exactly 10,000 code points", () => {
  it("is sent to the guard model", async () => {
    const guard = guardModel();
    const items = itemsJoinedTo(10_000);
    expect(codePoints(items.join("\n\n"))).toBe(10_000);
    const answer = await moderatorWith(guard).moderate(request(...items));
    expect(guard.asked.map(codePoints)).toContain(10_000);
    expect(answer.combined?.secondOpinion).toMatchObject({ seconded: true });
  });

  it("while one of 10,001 is not", async () => {
    const guard = guardModel();
    const answer = await moderatorWith(guard).moderate(request(...itemsJoinedTo(10_001)));
    expect(guard.asked.map(codePoints)).not.toContain(10_001);
    expect(answer.combined?.secondOpinion).toBeUndefined();
  });
});
