import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema, ModerateResponseSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { countModerate } from "../../src/metering/count-moderate.js";

describe("countModerate", () => {
  it("counts deep analyses only when the request asked for them, one per image item", () => {
    const input = [{ type: "image", base64: "x" }, { type: "text", text: "t" }, { type: "image", base64: "y" }];
    const flagged = create(ModerateResponseSchema, { flagged: true });
    expect(countModerate(create(ModerateRequestSchema, { input, analyzeImages: true }), flagged))
      .toEqual({ requests: 1, textItems: 1, imageItems: 2, deepAnalyses: 2, flagged: 1 });
    expect(countModerate(create(ModerateRequestSchema, { input, analyzeImages: false }), create(ModerateResponseSchema)))
      .toEqual({ requests: 1, textItems: 1, imageItems: 2, deepAnalyses: 0, flagged: 0 });
  });
});
