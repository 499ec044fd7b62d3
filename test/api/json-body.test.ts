import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { moderateRequestFromJson } from "../../src/http/json-body.js";
import { parseJsonBody } from "../../src/moderation/json-body-value.js";

const bytes = (json: string) => new TextEncoder().encode(json);

// moderateRequestFromJson builds the request message field by field; it must be the message create() makes.
describe("moderateRequestFromJson of a parsed body", () => {
  it.each([
    ['{"input":[{"type":"text","text":"hi"}]}', { input: [{ type: "text", text: "hi" }] }],
    ['{"input":[{"type":"image","base64":"data:image/png;base64,AA=="}],"analyze_images":true}', { input: [{ type: "image", base64: "data:image/png;base64,AA==" }], analyzeImages: true }],
    ['{"input":[{"type":"text"},{"type":"text","text":"b"}],"analyze_images":false}', { input: [{ type: "text" }, { type: "text", text: "b" }] }],
    ['{"input":[]}', {}],
  ])("%s", (json, init) => {
    expect(moderateRequestFromJson(parseJsonBody(bytes(json)))).toStrictEqual(create(ModerateRequestSchema, init));
  });
});
