import { describe, expect, it } from "vitest";
import { applyPolicy, compilePolicy, flagsAt } from "../../src/policies/apply-policy.js";
import { validatePolicyRules } from "../../src/policies/policy.js";

// docs/policies.md: a category flags "when the score reaches" its threshold, so a score equal to
// the threshold flags. On the path with no model bar (images, and categories the text model has
// no bar for) the score alone decides; the text path with a bar is pinned by policy-e2e.test.ts.

describe("a threshold equal to the score, with no model bar", () => {
  it("flags", () => {
    expect(flagsAt(0.5, { score: 0.5, flagged: false }, undefined)).toBe(true);
    expect(flagsAt(0.5, { score: 0.499999, flagged: false }, undefined)).toBe(false);
  });

  it("flags an image verdict under a policy whose threshold is its score", () => {
    // An image verdict: scores only, no spans, judged without bars.
    const verdict = { categories: { sexual: { score: 0.42, flagged: false }, violence: { score: 0.1, flagged: false } }, explanations: {} };
    const policy = compilePolicy({ id: "pol", version: 1, ...validatePolicyRules({ thresholds: { sexual: 0.42, violence: 0.11 } }) });
    const judged = applyPolicy(verdict, "", policy);
    expect(judged.categories.sexual).toEqual({ score: 0.42, flagged: true });
    expect(judged.categories.violence).toEqual({ score: 0.1, flagged: false });
  });
});
