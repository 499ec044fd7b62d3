import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateResponseSchema } from "../../gen/moderation/v1/moderation_pb.js";
import type { Verdict } from "../../src/classifiers/classifier.js";
import { assembleAnswer, textItemResult } from "../../src/moderation/assemble-answer.js";
import { textAnswerMessage } from "../../src/moderation/text-answer-message.js";

const scored = (score: number, flagged = false): Verdict => ({ categories: { harassment: { score, flagged } }, explanations: {}, language: "en" });

describe("assembleAnswer: what the combined layer says it did not read", () => {
  it("marks the combined layer partly unread when an item was not (wholly) evaluated, though the joined text read as covered", () => {
    // Found by an audit (session 40): item 0 said French, the joined text read as English and
    // its layer gave every score with no not_evaluated.
    const french: Verdict = { categories: {}, explanations: {}, language: "fr", notEvaluated: { reason: "unsupported_language", language: "fr" } };
    const answer = assembleAnswer("modr_t", "m", [textItemResult(0, french, "m"), textItemResult(1, scored(0.1), "m")], scored(0.2));
    expect(answer.combined?.notEvaluated).toEqual({ reason: "partly_unsupported_language", language: "fr" });
    // The top level lists the item and repeats the combined layer's.
    expect(answer.notEvaluated).toEqual({ items: [{ index: 0, reason: "unsupported_language", language: "fr" }], combined: { reason: "partly_unsupported_language", language: "fr" } });
    // Its scores stand: it read the rest.
    expect(answer.combined?.categories.harassment?.score).toBe(0.2);
  });

  it("reads what the embedded model left unread, also where a guard model then judged the item", () => {
    // The guard judged item 0 whole, so its result has no not_evaluated; the combined layer is the
    // embedded model's alone and did not read the French.
    const judgedByGuard = textItemResult(0, scored(0.9, true), "m");
    const answer = assembleAnswer("modr_t", "m", [judgedByGuard, textItemResult(1, scored(0.1), "m")], scored(0.2), [{ reason: "unsupported_language", language: "fr" }, undefined]);
    expect(answer.combined?.notEvaluated).toEqual({ reason: "partly_unsupported_language", language: "fr" });
    // No item is unread, but the combined text partly is, and the top level says so.
    expect(answer.notEvaluated).toEqual({ items: [], combined: { reason: "partly_unsupported_language", language: "fr" } });
    const read = assembleAnswer("modr_t", "m", [judgedByGuard], scored(0.2), [undefined]);
    expect(read.combined?.notEvaluated).toBeUndefined();
    expect(read.notEvaluated).toBeUndefined();
  });

  it("keeps the combined layer's own reading, and adds nothing when every item was evaluated", () => {
    const own: Verdict = { categories: {}, explanations: {}, language: "es", notEvaluated: { reason: "unsupported_language", language: "es" } };
    const partly: Verdict = { ...scored(0.3), notEvaluated: { reason: "partly_unsupported_language", language: "fr" } };
    expect(assembleAnswer("modr_t", "m", [textItemResult(0, partly, "m"), textItemResult(1, scored(0.1), "m")], own).combined?.notEvaluated)
      .toEqual({ reason: "unsupported_language", language: "es" });
    expect(assembleAnswer("modr_t", "m", [textItemResult(0, scored(0.9, true), "m"), textItemResult(1, scored(0.1), "m")], scored(0.5)).combined?.notEvaluated).toBeUndefined();
  });
});

describe("assembleAnswer: the combined layer's second opinion", () => {
  const failed = { provider: "llama-guard", model: "guard", trigger: "uncertain" as const, seconded: false, errorCode: "provider_unavailable", categoryModels: {} };

  it("puts it on the combined result, and the field-by-field message matches create's", () => {
    const answer = assembleAnswer("modr_t", "m", [textItemResult(0, scored(0.3, true), "m"), textItemResult(1, scored(0.1), "m")], scored(0.5, true), undefined, failed);
    expect(answer.combined?.secondOpinion).toEqual(failed);
    expect(textAnswerMessage(answer)).toEqual(create(ModerateResponseSchema, answer));
  });

  it("leaves it out when the combined text was not sent", () => {
    const answer = assembleAnswer("modr_t", "m", [textItemResult(0, scored(0.3), "m"), textItemResult(1, scored(0.1), "m")], scored(0.5));
    expect(answer.combined && "secondOpinion" in answer.combined).toBe(false);
  });
});
