import { describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import type { Verdict } from "../../src/classifiers/classifier.js";
import { ApiError } from "../../src/errors/api-error.js";
import type { GuardedTextProvider } from "../../src/providers/text/guarded-text-provider.js";
import { createSecondOpinion, mergeVerdicts, resolveMode, triggerFor, type LanguageCoverage } from "../../src/moderation/second-opinion.js";

const band = { low: 0.2, high: 0.8 };
const settings = { defaultMode: "cascade" as const, onFailure: "embedded" as const, band };
const covered: LanguageCoverage = () => ({ covered: true });

function verdict(scores: Record<string, [number, boolean]>, spans: Record<string, string> = {}): Verdict {
  return {
    categories: Object.fromEntries(Object.entries(scores).map(([c, [score, flagged]]) => [c, { score, flagged }])),
    explanations: Object.fromEntries(Object.entries(spans).map(([c, text]) => [c, [{ start: 0, end: text.length, text, weight: 1 }]])),
  };
}

/** A provider answering `answer` (or failing with it), counting its calls. */
function provider(answer: Verdict | Error): GuardedTextProvider & { calls: number } {
  const fake = {
    kind: "llama-guard" as const, id: "guard-1", judges: [], calls: 0, circuitState: () => "closed" as const,
    async classify() {
      fake.calls++;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return fake;
}

describe("the merge rule", () => {
  const embedded = verdict(
    { harassment: [0.65, true], hate: [0.9, true], violence: [0.05, false], sexual: [0.3, false], self_harm: [0.1, false] },
    { harassment: "idiot", hate: "vermin" },
  );
  const guard = verdict({ harassment: [0.1, false], hate: [0, false], violence: [0.95, true], self_harm: [0.02, false] });

  it("keeps the embedded verdict where the guard has no counterpart, lets the guard decide where the embedded score is unsure, and otherwise takes the higher score and either flag", () => {
    const { verdict: merged, judges } = mergeVerdicts(embedded, guard, "uncertain", band);
    expect(merged.categories).toEqual({
      harassment: { score: 0.1, flagged: false }, // 0.65 was unsure: the guard overrules it
      hate: { score: 0.9, flagged: true }, // sure embedded flag: never cleared
      self_harm: { score: 0.1, flagged: false }, // both sure: higher score
      sexual: { score: 0.3, flagged: false }, // the guard has no counterpart
      violence: { score: 0.95, flagged: true }, // sure embedded 0.05, the guard flags: flagged
    });
    expect(judges).toEqual({ harassment: "provider", hate: "both", self_harm: "both", sexual: "embedded", violence: "both" });
    // Spans stay only where the embedded flag is part of the answer.
    expect(Object.keys(merged.explanations)).toEqual(["hate"]);
  });

  it("for a language the embedded model does not cover, the guard decides every category it judges", () => {
    const { verdict: merged, judges } = mergeVerdicts(embedded, guard, "language", band);
    expect(merged.categories.hate).toEqual({ score: 0, flagged: false });
    expect(judges.hate).toBe("provider");
    expect(judges.sexual).toBe("embedded");
  });

  it("fills categories the embedded model did not evaluate from the guard", () => {
    const { verdict: merged, judges } = mergeVerdicts(verdict({}), guard, "always", band);
    expect(merged.categories.violence).toEqual({ score: 0.95, flagged: true });
    expect(judges.violence).toBe("provider");
  });
});

describe("which items go to the provider", () => {
  const sure = verdict({ harassment: [0.05, false], violence: [0.95, true] });
  const unsure = verdict({ harassment: [0.05, false], hate: [0.35, false] });

  it("cascade sends only items with a score in the uncertain band; always sends all; off none", () => {
    expect(triggerFor("cascade", sure, band, covered)).toBeUndefined();
    expect(triggerFor("cascade", unsure, band, covered)).toBe("uncertain");
    expect(triggerFor("always", sure, band, covered)).toBe("always");
    expect(triggerFor("off", unsure, band, covered)).toBeUndefined();
  });

  it("sends an item whose language the embedded model does not cover (through the coverage seam), in cascade and always", () => {
    const notCovered: LanguageCoverage = () => ({ covered: false, language: "sw" });
    expect(triggerFor("cascade", sure, band, notCovered)).toBe("language");
    expect(triggerFor("always", sure, band, notCovered)).toBe("language");
    expect(triggerFor("off", sure, band, notCovered)).toBeUndefined();
  });

  // Found by a review (session 51): "!!!" cost a provider call in always mode, and the guard's
  // scores stood beside no_text.
  it("sends no item with nothing to read, in any mode", () => {
    const nothing = { categories: {}, explanations: {}, language: "und", notEvaluated: { reason: "no_text" as const, language: "und" } };
    for (const mode of ["always", "cascade"] as const) expect(triggerFor(mode, nothing, band, covered), mode).toBeUndefined();
  });
});

describe("a second opinion", () => {
  it("names who judged: both models on the item, and per category only where that differs", async () => {
    const judge = createSecondOpinion({ provider: provider(verdict({ hate: [0.05, false], violence: [0.1, false] })), settings, coverage: covered });
    const judged = await judge("I hate mondays", verdict({ hate: [0.35, false], violence: [0.02, false], sexual: [0.01, false] }), "text-1", "cascade");
    expect(judged.models).toEqual(["text-1", "guard-1"]);
    expect(judged.secondOpinion).toEqual({
      provider: "llama-guard", model: "guard-1", trigger: "uncertain", seconded: true, errorCode: "",
      categoryModels: { hate: { models: ["guard-1"] }, sexual: { models: ["text-1"] } },
    });
  });

  it("does not call the provider for a sure item in cascade mode", async () => {
    const guard = provider(verdict({}));
    const judged = await createSecondOpinion({ provider: guard, settings, coverage: covered })("hi", verdict({ hate: [0.01, false] }), "text-1", "cascade");
    expect(guard.calls).toBe(0);
    expect(judged).toEqual({ verdict: verdict({ hate: [0.01, false] }), models: ["text-1"] });
  });

  it("by default answers with the embedded verdict, marked not seconded, when the provider fails", async () => {
    const failing = provider(new ApiError("provider_unavailable", "down"));
    const embedded = verdict({ hate: [0.35, false] });
    const judged = await createSecondOpinion({ provider: failing, settings, coverage: covered })("x", embedded, "text-1", "always");
    expect(judged.verdict).toBe(embedded);
    expect(judged.models).toEqual(["text-1"]);
    expect(judged.secondOpinion).toMatchObject({ seconded: false, errorCode: "provider_unavailable", trigger: "always" });
  });

  it("fails the request with provider_unavailable when TEXT_PROVIDER_ON_FAILURE=fail", async () => {
    const failing = provider(new ApiError("provider_unavailable", "down"));
    const judge = createSecondOpinion({ provider: failing, settings: { ...settings, onFailure: "fail" }, coverage: covered });
    await expect(judge("x", verdict({}), "text-1", "always")).rejects.toMatchObject({ code: "provider_unavailable" });
  });
});

describe("the request's mode", () => {
  it("defaults to the server's, accepts off/always/cascade, and refuses others or a mode without a provider", () => {
    expect(resolveMode("", settings)).toBe("cascade");
    expect(resolveMode("", undefined)).toBe("off");
    expect(resolveMode("always", settings)).toBe("always");
    expect(resolveMode("off", undefined)).toBe("off");
    expect(() => resolveMode("sometimes", settings)).toThrow(expect.objectContaining({ code: "invalid_request" }));
    expect(() => resolveMode("cascade", undefined)).toThrow(expect.objectContaining({ code: "provider_not_configured" }));
  });
});

describe("a text the embedded model read only in part", () => {
  const partly: Verdict = { ...verdict({ harassment: [0.9, true], violence: [0.01, false] }), language: "en", notEvaluated: { reason: "partly_unsupported_language", language: "fr" } };
  const all = verdict(Object.fromEntries(CATEGORY_IDS.map((c) => [c, [0.02, false]])));

  it("is read whole only when the guard model judged every category", async () => {
    const whole = await createSecondOpinion({ provider: provider(all), settings })("you idiot. je vais te faire mal", partly, "embedded-1", "always");
    expect(whole.judgedWhole).toBe(true);
    // Llama Guard and the like have no counterpart for some categories: those stay the embedded
    // model's reading of the English part, so the item stays partly not evaluated.
    const some = await createSecondOpinion({ provider: provider(verdict({ violence: [0.97, true], hate: [0.01, false] })), settings })("you idiot. je vais te faire mal", partly, "embedded-1", "always");
    expect(some.secondOpinion?.seconded).toBe(true);
    expect(some.judgedWhole).toBeUndefined();
  });
});
