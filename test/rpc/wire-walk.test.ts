import { create, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { TestPolicyRequestSchema } from "../../gen/moderation/v1/policy_pb.js";
import { outlineRequest } from "../../src/rpc/count-input-items.js";
import { mutateBytes, pick } from "../support/fuzz-mutations.js";
import { seededRandom } from "../support/seeded-random.js";

/** The items outlineRequest reads, the count the body guard refuses by. */
const countInputItems = (...args: Parameters<typeof outlineRequest>): number | undefined => outlineRequest(...args).items;

// The body guard counts a request's input items without decoding it (wire-walk.ts) and refuses
// more than ten before fromBinary builds them. The count must be fromBinary's own: one it missed
// is a body decoded in full (30 million empty items: 25 s of event loop).

const BINARY = { enveloped: false, json: false };

/** fromBinary's item count, or "refused" when it throws. */
function decodedCount(schema: DescMessage, bytes: Uint8Array): number | "refused" {
  try {
    return (fromBinary(schema, bytes) as unknown as { input: unknown[] }).input.length;
  } catch {
    return "refused";
  }
}

const bytes = (...parts: (number | number[] | Uint8Array)[]) => Uint8Array.from(parts.flatMap((part) => (typeof part === "number" ? [part] : [...part])));
/** mutateBytes splices fragments in as UTF-8; these are meant as raw bytes. */
const latin1 = (body: Uint8Array) => Uint8Array.from(Buffer.from(Buffer.from(body).toString("utf8"), "latin1"));
const repeat = (times: number, part: number[]) => Array.from({ length: times }, () => part).flat();
const POLICY_REQUEST = create(TestPolicyRequestSchema, {
  rules: { thresholds: { violence: 0.5, hate: 0.25 }, off: ["sexual"], blockList: [{ term: "darn", category: "custom" }], allowList: ["kill time"] },
  input: Array.from({ length: 11 }, (_, i) => ({ type: "text", text: `x${i}` })),
});

/** Twelve empty items (field 1, length 0): more than a request may hold. */
const TWELVE_ITEMS = repeat(12, [0x0a, 0x00]);

describe("counting a ModerateRequest's items without decoding it", () => {
  it.each([
    ["ordinary items", toBinary(ModerateRequestSchema, create(ModerateRequestSchema, { input: [{ type: "text", text: "hi" }, { type: "image", base64: "data:image/png;base64,AA==" }], analyzeImages: true }))],
    ["a million empty items (2 MB)", new Uint8Array(2_000_000).map((_, i) => (i % 2 === 0 ? 0x0a : 0))],
    // fromBinary reads a known field by its type, whatever the tag's wire type: field 2 (a bool)
    // sent as length-delimited is a varint to it, so the twelve items after it are read as items.
    ["a bool sent as length-delimited over the items", bytes(0x12, 24, TWELVE_ITEMS)],
    // An item whose text runs past the item's announced length: fromBinary reads on from there.
    // A scan of the top-level tags takes the bytes after the item for an unknown field 5 holding the items.
    ["an item's text running past the item, over the items", bytes(0x0a, 0x02, 0x12, 0x03, 0x2a, 0x18, 0x00, TWELVE_ITEMS)],
    // An item announced with a non-minimal length and an item with an unknown group inside.
    ["non-minimal varints and groups", bytes(0x8a, 0x00, 0x00, 0x0a, 0x04, 0x2b, 0x08, 0x01, 0x2c, 0x0a, 0x00)],
    ["an item sent as a group tag", bytes(0x0b, 0x00, 0x0a, 0x00)],
  ])("%s: the count fromBinary would build", (_name, body) => {
    const decoded = decodedCount(ModerateRequestSchema, body);
    expect(decoded).not.toBe("refused");
    expect(countInputItems(ModerateRequestSchema, BINARY, body)).toBe(decoded);
  });

  it("a body fromBinary refuses: the items it would read before failing", () => {
    expect(countInputItems(ModerateRequestSchema, BINARY, bytes(TWELVE_ITEMS, 0x0a, 0x10, 0x0a))).toBe(13);
    expect(decodedCount(ModerateRequestSchema, bytes(TWELVE_ITEMS, 0x0a, 0x10, 0x0a))).toBe("refused");
  });

  it("TestPolicy's items are its field 2, past a policy draft", () => {
    expect(countInputItems(TestPolicyRequestSchema, BINARY, toBinary(TestPolicyRequestSchema, POLICY_REQUEST))).toBe(11);
  });

  // Damaged copies of real requests: wherever fromBinary accepts one, the counts agree.
  it.each([
    ["ModerateRequest", ModerateRequestSchema, [
      toBinary(ModerateRequestSchema, create(ModerateRequestSchema, { input: [{ type: "text", text: "hello" }, { type: "text", text: "there" }], textProviderMode: "off" })),
      toBinary(ModerateRequestSchema, create(ModerateRequestSchema, { input: Array.from({ length: 12 }, (_, i) => ({ type: "text", text: `t${i}` })) })),
    ]],
    ["TestPolicyRequest (maps, nested lists)", TestPolicyRequestSchema, [toBinary(TestPolicyRequestSchema, POLICY_REQUEST)]],
  ] as const)("agrees with fromBinary on 4,000 damaged %s bodies", (_name, schema, seeds) => {
    const next = seededRandom(20261206);
    const fragments = ["\x0a\x00", "\x0a\x02\x12\x05", "\x12\x80\x01", "\x2b", "\x2c", "\x0b", "\x0c", "\x10\xff\xff\xff\xff\x0f", "\x0a\x80\x80\x80\x80\x10", "\x09", "\x0d"];
    let compared = 0;
    for (let i = 0; i < 4_000; i++) {
      let body: Uint8Array = pick(next, seeds);
      for (let m = 1 + Math.floor(next() * 2); m > 0; m--) body = latin1(mutateBytes(next, body, fragments));
      const decoded = decodedCount(schema, body);
      if (decoded === "refused") continue;
      compared++;
      expect(countInputItems(schema, BINARY, body), Buffer.from(body).toString("hex")).toBe(decoded);
    }
    expect(compared).toBeGreaterThan(400);
  });
});
