import { create, isMessage, toJson } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateResponseSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { LazyTextAnswer } from "../../src/workers/lazy-text-answer.js";

describe("LazyTextAnswer", () => {
  const full = create(ModerateResponseSchema, {
    id: "modr_1",
    model: "m",
    flagged: true,
    results: [{ index: 0, type: "text", flagged: true, categories: { hate: { score: 0.9, flagged: true } }, models: ["m"] }],
    combined: { flagged: true, categories: { hate: { score: 0.9, flagged: true } } },
  });

  it("builds its results only when they are read, once", () => {
    let builds = 0;
    const answer = new LazyTextAnswer("modr_1", "m", true, true, () => (builds++, full));
    expect([answer.id, answer.model, answer.flagged]).toEqual(["modr_1", "m", true]);
    expect(builds).toBe(0);
    expect(answer.results).toBe(full.results);
    expect(answer.combined).toBe(full.combined);
    expect(answer.results).toBe(full.results);
    expect(builds).toBe(1);
  });

  it("is a ModerateResponse to protobuf-es: the same JSON as the message it builds", () => {
    const answer = new LazyTextAnswer("modr_1", "m", true, true, () => full);
    expect(isMessage(answer, ModerateResponseSchema)).toBe(true);
    expect(toJson(ModerateResponseSchema, answer)).toEqual(toJson(ModerateResponseSchema, full));
    const single = create(ModerateResponseSchema, { ...full, combined: undefined });
    const withoutCombined = new LazyTextAnswer("modr_1", "m", true, false, () => single);
    expect(toJson(ModerateResponseSchema, withoutCombined)).toEqual(toJson(ModerateResponseSchema, single));
    expect("combined" in withoutCombined).toBe(false);
  });
});
