import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import type { TextClassifier, Verdict } from "../../src/classifiers/classifier.js";
import { createModerator } from "../../src/moderation/moderate.js";
import type { SecondOpinion } from "../../src/moderation/second-opinion.js";
import { compilePolicy } from "../../src/policies/apply-policy.js";
import { validatePolicyRules } from "../../src/policies/policy.js";

// A policy threshold keeps the embedded model's reading (its bar) only for categories the
// embedded model alone judged: the guard model flags by its own threshold.
const embedded: TextClassifier = {
  id: "embedded-model",
  classify: (): Verdict => ({ categories: { hate: { score: 0.3, flagged: false }, harassment: { score: 0.9, flagged: false } }, explanations: {} }),
};
// The guard judged hate (0.62, unflagged by its own threshold); harassment stays the embedded model's
// (0.9 held back over its bar of 0.5: a frame).
const secondOpinion: SecondOpinion = async () => ({
  verdict: { categories: { hate: { score: 0.62, flagged: false }, harassment: { score: 0.9, flagged: false } }, explanations: {} },
  models: ["embedded-model", "guard"],
  secondOpinion: { provider: "openai-moderation", model: "guard", trigger: "always", seconded: true, errorCode: "", categoryModels: { hate: { models: ["guard"] }, harassment: { models: ["embedded-model"] } } },
});

describe("a policy threshold under a guard model's second opinion", () => {
  it("reads a guard-judged category by its score, an embedded-judged one against the model's bar", async () => {
    const moderate = createModerator({
      textClassifier: embedded,
      textFlagBars: { hate: 0.57, harassment: 0.5 },
      textProvider: { settings: { defaultMode: "always", onFailure: "embedded", band: { low: 0.2, high: 0.8 } }, secondOpinion },
    });
    const policy = compilePolicy({ id: "pol", version: 1, ...validatePolicyRules({ thresholds: { hate: 0.4, harassment: 0.4 } }) });
    const answer = await moderate(create(ModerateRequestSchema, { input: [{ type: "text", text: "some text" }], textProviderMode: "always" }), undefined, policy);
    const categories = answer.results![0]!.categories as Record<string, { flagged: boolean }>;
    // Guard's hate 0.62 over the policy's 0.4: flagged (the model's bar would have held it back).
    expect(categories.hate!.flagged).toBe(true);
    // The embedded model held harassment back over its own bar: it stays unflagged.
    expect(categories.harassment!.flagged).toBe(false);
  });
});
