import { describe, expect, it } from "vitest";
import { useServerWithKey } from "../support/test-server.js";

// An audit of error answers as a first-time integrator reads them (trailing commas counted as items,
// Connect JSON passing protobuf-es's words through, "not valid JSON" with no position, differences
// between routes for the same mistake). Each request goes over a real socket.

const file = useServerWithKey();
const CONNECT_PATH = "/moderation.v1.ModerationService/Moderate";
const ITEM = '{"type":"text","text":"hi"}';
const items = (count: number) => Array.from({ length: count }, () => ITEM).join(",");

interface Answer { status: number; code: string | null; message: string }

async function post(path: string, body: string, headers: Record<string, string> = { "x-api-key": file.key }): Promise<Answer> {
  const response = await fetch(`${file.server.httpUrl}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const json = (await response.json()) as { message?: string; error?: { message: string } };
  return { status: response.status, code: response.headers.get("x-error-code"), message: json.error?.message ?? json.message ?? "" };
}

const json = (body: string) => post("/v1/moderate", body);
const connect = (body: string) => post(CONNECT_PATH, body);
const openAi = (body: string) => post("/v1/moderations", body);

describe("a trailing comma in the input list", () => {
  it("is invalid JSON on /v1/moderate, Connect JSON and /v1/moderations, not an eleventh item", async () => {
    const expected = /^The request body is not valid JSON: unexpected "\]" at line 1, column \d+; expected a value \(JSON allows no comma before "\]"\)\.$/;
    for (const [route, answer] of [
      ["json", await json(`{"input":[${items(10)},]}`)],
      ["connect", await connect(`{"input":[${items(10)},]}`)],
      ["openai parts", await openAi(`{"input":[${items(10)},]}`)],
      ["openai strings", await openAi(`{"input":[${Array.from({ length: 10 }, () => '"hi"').join(",")},]}`)],
    ] as const) {
      expect(answer.status, route).toBe(400);
      expect(answer.code, route).toBe("invalid_request");
      expect(answer.message, route).toMatch(expected);
    }
  });

  it("leaves eleven items with a trailing comma too_many_items, holding eleven", async () => {
    for (const answer of [await json(`{"input":[${items(11)},]}`), await connect(`{"input":[${items(11)},,]}`), await openAi(`{"input":[${items(11)},]}`)]) {
      expect(answer).toMatchObject({ status: 400, code: "too_many_items", message: "A request may hold at most 10 input items; this one holds 11." });
    }
  });
});

describe("Connect JSON and /v1/moderate give the same message for the same mistake", () => {
  const ok = ITEM;
  it.each([
    ["a number as text at input[2]", `{"input":[${ok},${ok},{"type":"text","text":5}]}`, "input[2].text must be a string."],
    ["input as a string", '{"input":"hello"}', '"input" must be an array of items.'],
    ["input as an object", `{"input":${ok}}`, '"input" must be an array of items.'],
    ["an item as a string", '{"input":["hi"]}', 'input[0] must be an object such as {"type":"text","text":"..."}.'],
    ["an item as null", '{"input":[null]}', 'input[0] must be an object such as {"type":"text","text":"..."}.'],
    ["a top-level array", `[${ok}]`, 'The request body must be a JSON object with an "input" array.'],
    ["analyze_images as a string", `{"input":[${ok}],"analyze_images":"true"}`, '"analyze_images" must be true or false.'],
    ["text_provider_mode as a number", `{"input":[${ok}],"text_provider_mode":1}`, '"text_provider_mode" must be a string: "off", "always" or "cascade".'],
    ["an empty body", "", 'The request body is empty; send a JSON object such as {"input":[{"type":"text","text":"..."}]}.'],
    ["a blank body", " \n ", 'The request body is empty; send a JSON object such as {"input":[{"type":"text","text":"..."}]}.'],
    ["a trailing comma", `{"input":[${ok},]}`, 'The request body is not valid JSON: unexpected "]" at line 1, column 39; expected a value (JSON allows no comma before "]").'],
    ["single quotes", "{'input':[]}", `The request body is not valid JSON: unexpected "'" at line 1, column 2; expected a double-quoted key or "}" (JSON strings and keys take double quotes).`],
    ["a body cut off", `{"input":[${ok}`, "The request body is not valid JSON: it ends at line 1, column 38, before its JSON is complete (a string, array or object is not closed, or a value is missing)."],
    ["a duplicate key", '{"input":[{"type":"text","text":"a","text":"b"}]}', 'The request body has a duplicate object key "text": a key may appear only once in a JSON object.'],
    // Items are shape-checked in index order before their values: the same on both.
    ["a bad type before a number as text", '{"input":[{"type":"txt","text":"a"},{"type":"text","text":5}]}', "input[1].text must be a string."],
  ])("%s", async (_name, body, message) => {
    const [viaJson, viaConnect] = [await json(body), await connect(body)];
    expect(viaJson).toEqual({ status: 400, code: "invalid_request", message });
    expect(viaConnect).toEqual({ status: 400, code: "invalid_request", message });
  });

  it("names a camelCase field as the Connect caller wrote it", async () => {
    expect((await connect(`{"input":[${ITEM}],"analyzeImages":"true"}`)).message).toBe('"analyzeImages" must be true or false.');
    expect((await connect(`{"input":[${ITEM}],"textProviderMode":1}`)).message).toBe('"textProviderMode" must be a string: "off", "always" or "cascade".');
  });

  it("ignores unknown fields on Connect as protobuf does, and reports the mistake the decoder found", async () => {
    expect(await connect(`{"input":[{"type":"text","text":5,"url":"x"}],"somethingNew":{"a":[1]}}`)).toMatchObject({ status: 400, message: "input[0].text must be a string." });
  });
});

describe("null for a field not given, on /v1/moderate as on Connect", () => {
  it.each([
    [`{"input":[${ITEM}],"analyze_images":null}`],
    [`{"input":[${ITEM}],"text_provider_mode":null}`],
    ['{"input":[{"type":"text","text":"hi","base64":null}]}'],
  ])("%s: answered", async (body) => {
    const response = await fetch(`${file.server.httpUrl}/v1/moderate`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": file.key }, body });
    expect(response.status).toBe(200);
    const viaConnect = await fetch(`${file.server.httpUrl}${CONNECT_PATH}`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": file.key }, body });
    expect(viaConnect.status).toBe(200);
  });

  it("a null text or type: the same refusal as on Connect", async () => {
    for (const [body, message] of [
      ['{"input":[{"type":"text","text":null}]}', "input[0].text must be a non-empty string."],
      ['{"input":[{"type":null,"text":"hi"}]}', 'input[0].type is missing; it must be "text" or "image".'],
    ]) {
      expect(await json(body!)).toEqual({ status: 400, code: "invalid_request", message });
      expect(await connect(body!)).toEqual({ status: 400, code: "invalid_request", message });
    }
  });
});

describe("the same items give the same first refusal on every route", () => {
  it("/v1/moderations reports a too-long text before an empty string after it, as /v1/moderate does", async () => {
    const long = "a".repeat(10_001);
    const viaOpenAi = await openAi(JSON.stringify({ input: [long, ""] }));
    expect(viaOpenAi).toMatchObject({ status: 400, code: "text_too_long" });
    expect(viaOpenAi.message).toMatch(/^input\[0\] is longer than/);
    expect(await json(JSON.stringify({ input: [{ type: "text", text: long }, { type: "text", text: "" }] }))).toMatchObject({ status: 400, code: "text_too_long" });
    // The empty string alone keeps its words.
    expect(await openAi(JSON.stringify({ input: ["hi", ""] }))).toMatchObject({ status: 400, code: "invalid_request", message: "input[1] must be a non-empty string." });
    expect(await openAi(JSON.stringify({ input: "" }))).toMatchObject({ status: 400, code: "invalid_request", message: '"input" must be a non-empty string.' });
  });

  it("an http(s) URL as an image: invalid_image saying URLs are not fetched, on /v1/moderate and Connect", async () => {
    for (const url of ["https://example.com/a.png", "http://example.com/a.png", "//cdn.example/a.png", " HTTPS://example.com/a.png"]) {
      const body = JSON.stringify({ input: [{ type: "image", base64: url }] });
      const message = "input[0].base64 is a URL; images must be data URIs (data:<type>;base64,…); URLs are not fetched.";
      expect(await json(body)).toEqual({ status: 400, code: "invalid_image", message });
      expect(await connect(body)).toMatchObject({ code: "invalid_image", message });
    }
    // /v1/moderations keeps its own code for an image_url part.
    expect(await openAi(JSON.stringify({ input: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] }))).toMatchObject({ status: 400, code: "remote_image_not_supported" });
  });
});

describe("a key sent in a form the service does not read", () => {
  const KEY_PREFIX = () => file.key;
  it.each([
    ["Authorization without a scheme", (key: string) => ({ authorization: key }), 'The Authorization header holds no scheme (it must read "Bearer <key>"): send Authorization: Bearer <key> or X-API-Key: <key>.'],
    ["Bearer with no space", (key: string) => ({ authorization: `Bearer${key}` }), 'The Authorization header has no space after "Bearer": send Authorization: Bearer <key> or X-API-Key: <key>.'],
    ["Basic", () => ({ authorization: "Basic dXNlcjpwYXNz" }), 'The Authorization header uses the "Basic" scheme, and only Bearer carries an API key: send Authorization: Bearer <key> or X-API-Key: <key>.'],
    ["Bearer and nothing", () => ({ authorization: "Bearer" }), 'The Authorization header holds "Bearer" but no key after it: send Authorization: Bearer <key> or X-API-Key: <key>.'],
    ["an api-key header", (key: string) => ({ "api-key": key }), 'A key was sent in an "api-key" header, which this service does not read: send Authorization: Bearer <key> or X-API-Key: <key>.'],
  ])("%s: missing_api_key, saying what was wrong", async (_name, headers, message) => {
    for (const path of ["/v1/moderate", CONNECT_PATH, "/v1/moderations"]) {
      const answer = await post(path, JSON.stringify({ input: [{ type: "text", text: "hi" }] }), headers(KEY_PREFIX()));
      expect(answer, path).toEqual({ status: 401, code: "missing_api_key", message });
    }
  });

  it("no header at all keeps the general message", async () => {
    const answer = await post("/v1/moderate", JSON.stringify({ input: [{ type: "text", text: "hi" }] }), {});
    expect(answer).toEqual({ status: 401, code: "missing_api_key", message: "An API key is required: send it in the X-API-Key header or as Authorization: Bearer <key> (x-api-key or authorization metadata on gRPC)." });
  });
});

describe("a disabled account's key", () => {
  it("is invalid_api_key saying the account is disabled; an unknown or revoked key is not told so", async () => {
    const account = await file.server.createAccount("enterprise", 1_000_000);
    const revoked = await file.server.createAccount("enterprise", 1_000_000);
    await file.server.ctx.accounts.setDisabled(account.accountId, true);
    await file.server.ctx.accounts.revokeKey(revoked.keyId);
    const body = JSON.stringify({ input: [{ type: "text", text: "hi" }] });
    const disabled = "The API key's account is disabled: its keys are refused until an operator enables it again.";
    for (const path of ["/v1/moderate", CONNECT_PATH]) {
      expect(await post(path, body, { "x-api-key": account.key })).toEqual({ status: 401, code: "invalid_api_key", message: disabled });
      expect(await post(path, body, { "x-api-key": revoked.key })).toEqual({ status: 401, code: "invalid_api_key", message: "The API key is invalid or has been revoked." });
      expect(await post(path, body, { "x-api-key": `${account.key.slice(0, -4)}zzzz` })).toEqual({ status: 401, code: "invalid_api_key", message: "The API key is invalid or has been revoked." });
    }
    await file.server.ctx.accounts.setDisabled(account.accountId, false);
    expect((await post("/v1/moderate", body, { "x-api-key": account.key })).status).toBe(200);
  });
});
