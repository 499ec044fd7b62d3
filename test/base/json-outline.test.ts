import { describe, expect, it } from "vitest";
import { ModerateRequestSchema } from "../../gen/moderation/v1/moderation_pb.js";
import { outlineJson } from "../../src/base/json-outline.js";
import { outlineRequest } from "../../src/rpc/count-input-items.js";

const bytes = (json: string) => new TextEncoder().encode(json);
const ITEM = '{"type":"text","text":"hi"}';
const items = (count: number) => Array.from({ length: count }, () => ITEM).join(",");

// An audit (error answers, finding 1): every comma in the list counted an item, so ten items and
// a trailing comma were answered too_many_items "holds 11", where the body is invalid JSON.
describe("outlineJson: a comma counts no value; the value after it does", () => {
  it.each([
    [`{"input":[${items(10)},]}`, 10],
    [`{"input":[${items(10)} , \n ]}`, 10],
    [`{"input":[${items(10)},,]}`, 10],
    [`{"input":[${items(11)},]}`, 11],
    [`{"input":[,${items(2)}]}`, 2],
    [`{"input":[${items(1)},,${items(1)}]}`, 2],
    ['{"input":[1,2,3]}', 3],
    ['{"input":[ 1 , 2 ]}', 2],
  ])("%s: the input list holds %i", (json, length) => {
    expect(outlineJson(bytes(json), "input").listLength).toBe(length);
  });

  it("counts the values of valid JSON as before, and no value for a trailing comma at any depth", () => {
    expect(outlineJson(bytes('{"input":[{"type":"text","text":"a,b:{c}"},{}],"x":[[[]]]}'), "input")).toEqual({ listLength: 2, depth: 4, values: 8 });
    expect(outlineJson(bytes('{"input":[{"type":"text","text":"a,b:{c}",},{},],"x":[[[],],],}'), "input")).toEqual({ listLength: 2, depth: 4, values: 8 });
  });

  it("Connect JSON's item count (count-input-items.ts) reads it the same way, under either field name", () => {
    const json = { enveloped: false, json: true };
    expect(outlineRequest(ModerateRequestSchema, json, bytes(`{"input":[${items(10)},]}`)).items).toBe(10);
    expect(outlineRequest(ModerateRequestSchema, json, bytes(`{"input":[${items(11)},,]}`)).items).toBe(11);
  });
});
