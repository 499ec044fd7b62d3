import { create, toJson, ScalarType, type DescMessage, type DescField } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ModerateResponseSchema, type ModerateResponse } from "../../gen/moderation/v1/moderation_pb.js";
import { moderateAnswerJsonText } from "../../src/moderation/moderate-answer-json.js";

/** What the route's rendering must equal: protobuf-es's own JSON of the message, as text. */
const reference = (message: ModerateResponse) => JSON.stringify(toJson(ModerateResponseSchema, message, { useProtoFieldName: true, alwaysEmitImplicit: true }));

/** A small seeded generator, so a failure can be replayed. */
function random(seed: number) {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]! };
}
type Random = ReturnType<typeof random>;

const STRINGS = ["", "text", "en", "modr_abc", "quote \" and \\ backslash", "line\nbreak\ttab\u0001", "Ünïcödé 🙂", "lone \ud800 surrogate", "\u2028\u2029\u007f", "pair 🙂 \udbff\udfff", "\udc00 low first", "__proto__", "123", "toString"];
const DOUBLES = [0, -0, 1, 0.5, 0.006697, 1e-7, 123456789.123, -2.5, 1e21, Number.MIN_VALUE, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
const UINTS = [0, 1, 7, 255, 4294967295];

function scalar(type: ScalarType, rnd: Random): unknown {
  switch (type) {
    case ScalarType.STRING: return rnd.pick(STRINGS);
    case ScalarType.BOOL: return rnd.next() < 0.5;
    case ScalarType.DOUBLE: return rnd.pick(DOUBLES);
    case ScalarType.UINT32: return rnd.pick(UINTS);
    default: throw new Error(`the test does not generate ${ScalarType[type]} yet: add it`);
  }
}

/** An init object for `desc` with each field set at random (optional ones sometimes absent), recursively. */
function randomInit(desc: DescMessage, rnd: Random, depth: number): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  for (const field of desc.fields) {
    if (field.presence !== 2 /* IMPLICIT */ && rnd.next() < 0.3) continue;
    const value = randomValue(field, rnd, depth);
    if (value !== undefined) init[field.localName] = value;
  }
  return init;
}

function randomValue(field: DescField, rnd: Random, depth: number): unknown {
  const count = () => (depth > 3 ? 0 : rnd.int(4));
  switch (field.fieldKind) {
    case "scalar": return scalar(field.scalar, rnd);
    case "enum": return field.enum.values[rnd.int(field.enum.values.length)]!.number;
    case "message": return depth > 3 ? undefined : randomInit(field.message, rnd, depth + 1);
    case "list":
      return Array.from({ length: count() }, () =>
        field.listKind === "message" ? randomInit(field.message, rnd, depth + 1) : field.listKind === "enum" ? field.enum.values[0]!.number : scalar(field.scalar, rnd));
    case "map": {
      const record: Record<string, unknown> = {};
      for (let i = count(); i > 0; i--) {
        const key = rnd.pick(STRINGS);
        record[key] = field.mapKind === "message" ? randomInit(field.message, rnd, depth + 1) : field.mapKind === "enum" ? field.enum.values[0]!.number : scalar(field.scalar, rnd);
      }
      return record;
    }
  }
}

describe("moderateAnswerJsonText, the JSON route's one renderer", () => {
  it("writes toJson's text for messages with every field of the schema set at random", () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const message = create(ModerateResponseSchema, randomInit(ModerateResponseSchema, random(seed), 0) as never);
      const text = moderateAnswerJsonText(message);
      if (text !== reference(message)) expect({ seed, text }).toEqual({ seed, text: reference(message) });
    }
  });

  it("writes every field, also the rarely set ones (a field added to the proto must be added to the renderer)", () => {
    // Every field of every message reachable from ModerateResponse appears in some generated message.
    const seen = new Set<string>();
    const walk = (json: unknown, path: string) => {
      if (json === null || typeof json !== "object") return;
      for (const [key, value] of Object.entries(json)) {
        seen.add(`${path}.${key}`);
        walk(value, Array.isArray(json) ? path : `${path}.${key}`);
      }
    };
    for (let seed = 1; seed <= 300; seed++) walk(JSON.parse(moderateAnswerJsonText(create(ModerateResponseSchema, randomInit(ModerateResponseSchema, random(seed), 0) as never))), "");
    const expected = new Set<string>();
    const fieldsOf = (desc: DescMessage, path: string, depth: number) => {
      if (depth > 2) return;
      for (const field of desc.fields) {
        expected.add(`${path}.${field.name}`);
        if (field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message")) fieldsOf(field.message, `${path}.${field.name}`, depth + 1);
      }
    };
    fieldsOf(ModerateResponseSchema, "", 0);
    expect([...expected].filter((name) => !seen.has(name))).toEqual([]);
  });

  it("writes an empty answer and a message made field by field (no prototype defaults)", () => {
    const empty = create(ModerateResponseSchema);
    expect(moderateAnswerJsonText(empty)).toBe(reference(empty));
    expect(moderateAnswerJsonText(empty)).toBe('{"id":"","model":"","flagged":false,"results":[]}');
    const plain = { $typeName: "moderation.v1.ModerateResponse", id: "a", model: "m", flagged: true, results: [], combined: undefined } as ModerateResponse;
    expect(moderateAnswerJsonText(plain)).toBe(reference(plain));
  });
});
