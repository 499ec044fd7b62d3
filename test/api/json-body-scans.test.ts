import { describe, expect, it, vi } from "vitest";
import { firstDuplicateKey } from "../../src/base/json-duplicate-keys.js";
import { outlineJson } from "../../src/base/json-outline.js";
import { ApiError } from "../../src/errors/api-error.js";
import { moderateRequestFromJson } from "../../src/http/json-body.js";
import { parseJsonBody } from "../../src/moderation/json-body-value.js";
import { parseOpenAiModerationJson } from "../../src/http/openai/openai-request.js";

const bytes = (json: string) => new TextEncoder().encode(json);
/** /v1/moderate's parse of a body, as json-route.ts composes it (there with ctx.readJsonBody, which is parseJsonBody in the event loop). */
const parseModerateBody = (body: Uint8Array) => moderateRequestFromJson(parseJsonBody(body));

/** The ApiError a parse throws, as { code, message }. */
function refusal(parse: () => unknown): { code: string; message: string } {
  try {
    parse();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("outlineJson: a JSON text's structure, read without parsing it", () => {
  it.each([
    ['{"input":[1,2,3]}', 3],
    ['{ "input" : [ ] }', 0],
    ['{"input":[{"a":[1,2]},"x,y]",{"b":{"c":[]}}]}', 3],
    ['{"\\u0069nput":[1,2]}', 2],
    ['{"other":{"input":[1,2,3]},"input":[1]}', 1],
    ['{"input":[1],"input":[1,2,3,4]}', 4],
    ['{"text":"\\"input\\":[1,2]","input":[7]}', 1],
  ])("%s: the top-level input list holds %i", (json, length) => {
    expect(outlineJson(bytes(json), "input").listLength).toBe(length);
  });

  it.each([['{"input":"one string"}'], ['[{"input":[1,2]}]'], ['{"inputs":[1]}'], ['{"input":{"0":1}}']])("%s: no top-level input list", (json) => {
    expect(outlineJson(bytes(json), "input").listLength).toBeUndefined();
  });

  it("counts object members and array elements at every depth, and the deepest nesting", () => {
    expect(outlineJson(bytes('{"input":[{"type":"text","text":"a,b:{c}"},{}],"x":[[[]]]}'), "input")).toEqual({ listLength: 2, depth: 4, values: 8 });
  });
});

describe("firstDuplicateKey", () => {
  it.each([
    ['{"input":[{"type":"text","text":"I will kill you","text":"have a nice day"}]}', "text"],
    ['{"input":"a","input":"b"}', "input"],
    ['{"a":{"b":{"c":1,"c":2}}}', "c"],
    ['{"text":1,"\\u0074ext":2}', "text"],
    ['{"a\\"b":1,"a\\u0022b":2}', 'a"b'],
  ])("%s: %s", (json, key) => {
    expect(firstDuplicateKey(bytes(json))).toBe(key);
  });

  it("in an object of many keys (kept in a set past sixteen), escaped or not", () => {
    const many = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(",");
    expect(firstDuplicateKey(bytes(`{${many},"k7":0}`))).toBe("k7");
    expect(firstDuplicateKey(bytes(`{${many},"\\u006b39":0}`))).toBe("k39");
    expect(firstDuplicateKey(bytes(`{${many},"k40":0,"inner":{"k1":1}}`))).toBeUndefined();
  });

  it.each([
    ['{"input":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}'],
    ['{"a":{"a":{"a":1}},"b":["a","a"]}'],
    ['{"text":"\\"text\\":1","other":"text"}'],
    ['{"a":1,"A":2,"a ":3}'],
  ])("%s: none", (json) => {
    expect(firstDuplicateKey(bytes(json))).toBeUndefined();
  });
});

describe("the JSON routes' body checks", () => {
  it.each([
    ["/v1/moderate", parseModerateBody, '{"input":[{"type":"text","text":"I will kill you","text":"have a nice day"}]}', "text"],
    ["/v1/moderations", parseOpenAiModerationJson, '{"input":"I will kill you","input":"hello"}', "input"],
  ] as const)("%s: a duplicate key is invalid_request (JSON.parse would keep the last)", (_route, parse, json, key) => {
    expect(refusal(() => parse(bytes(json)))).toEqual({
      code: "invalid_request",
      message: `The request body has a duplicate object key "${key}": a key may appear only once in a JSON object.`,
    });
  });

  it.each([
    ["/v1/moderate", parseModerateBody, (item: string) => `{"input":[${item}]}`, '{"type":"text","text":"a"}'],
    ["/v1/moderations", parseOpenAiModerationJson, (item: string) => `{"input":[${item}]}`, '"a"'],
  ] as const)("%s: more than ten items is too_many_items, counted before anything is parsed", (_route, parse, body, item) => {
    const json = body(Array.from({ length: 200_000 }, () => item).join(","));
    const jsonParse = vi.spyOn(JSON, "parse");
    try {
      expect(refusal(() => parse(bytes(json)))).toEqual({ code: "too_many_items", message: "A request may hold at most 10 input items; this one holds 200000." });
      expect(jsonParse).not.toHaveBeenCalled();
    } finally {
      jsonParse.mockRestore();
    }
  });

  it("one item of 5,000 keys: refused before parsing, as more values than any request holds", () => {
    const keys = Array.from({ length: 5_000 }, (_, i) => `"k${i}":1`).join(",");
    const jsonParse = vi.spyOn(JSON, "parse");
    try {
      expect(refusal(() => parseModerateBody(bytes(`{"input":[{"type":"text","text":"a",${keys}}]}`)))).toEqual({
        code: "invalid_request",
        message: "The request body holds more than 1000 JSON values (object members and array elements), far more than any request needs.",
      });
      expect(jsonParse).not.toHaveBeenCalled();
    } finally {
      jsonParse.mockRestore();
    }
  });

  it("keeps its answers to other bodies: depth first among the rest, then JSON, then the route's shape", () => {
    expect(refusal(() => parseModerateBody(bytes(`{"input":${"[".repeat(40)}${"]".repeat(40)}}`))).message).toBe("The request body nests JSON more than 32 levels deep.");
    expect(refusal(() => parseModerateBody(bytes('{"input": [')))).toEqual({ code: "invalid_request", message: "The request body is not valid JSON: it ends at line 1, column 12, before its JSON is complete (a string, array or object is not closed, or a value is missing)." });
    expect(refusal(() => parseModerateBody(bytes('{"input":[{"type":"text","text":"a","x":1}]}'))).message).toBe('input[0] has unknown field "x".');
  });
});
