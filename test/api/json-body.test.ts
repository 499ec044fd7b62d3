import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { parseModerateJson } from "../../src/http/json-body.js";

const bytes = (json: string) => new TextEncoder().encode(json);

// parseModerateJson builds the request message field by field; it must be the message create() makes.
describe("parseModerateJson", () => {
  it.each([
    ['{"input":[{"type":"text","text":"hi"}]}', { input: [{ type: "text", text: "hi" }] }],
    ['{"input":[{"type":"image","base64":"data:image/png;base64,AA=="}],"analyze_images":true}', { input: [{ type: "image", base64: "data:image/png;base64,AA==" }], analyzeImages: true }],
    ['{"input":[{"type":"text"},{"type":"text","text":"b"}],"analyze_images":false}', { input: [{ type: "text" }, { type: "text", text: "b" }] }],
    ['{"input":[]}', {}],
  ])("%s", (json, init) => {
    expect(parseModerateJson(bytes(json))).toStrictEqual(create(ModerateRequestSchema, init));
  });
});
