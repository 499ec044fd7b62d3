import { request as httpRequest } from "node:http";
import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import OpenAI from "openai";
import { ModerateRequestSchema, ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import { describe, expect, it } from "vitest";
import { fetchJwks } from "../../src/client/fetch-jwks.js";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { MAX_REQUEST_BYTES } from "../../src/base/limits.js";
import { dataUri, png } from "../images/fixtures.js";
import { useServerWithKey } from "../support/test-server.js";

/** OpenAI's thirteen category names, written out rather than read from the code under test. */
const OPENAI_NAMES = [
  "harassment", "harassment/threatening", "hate", "hate/threatening", "illicit", "illicit/violent", "self-harm",
  "self-harm/intent", "self-harm/instructions", "sexual", "sexual/minors", "violence", "violence/graphic",
];
const NOT_EVALUATED = ["illicit", "illicit/violent"];

// METERING_FLUSH_MS: usage is readable almost at once, to check the route is metered.
const fixture = useServerWithKey({ env: { METERING_FLUSH_MS: "50" } });
const client = (apiKey = fixture.key) => new OpenAI({ apiKey, baseURL: `${fixture.server.httpUrl}/v1`, maxRetries: 0 });

async function raw(body: unknown, headers: Record<string, string> = {}) {
  const requestBody = typeof body === "string" ? body : JSON.stringify(body);
  const response = await fetch(`${fixture.server.httpUrl}/v1/moderations`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${fixture.key}`, ...headers },
    body: requestBody,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: JSON.parse(text), requestBody };
}

/** A request that announces `length` bytes of body and sends none: the answer to its headers alone. */
function announcedOnly(length: number): Promise<{ status: number; body: { error?: { code?: string; type?: string } } }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${fixture.server.httpUrl}/v1/moderations`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${fixture.key}`, "content-length": String(length) },
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
        request.destroy();
      });
    });
    request.on("error", reject);
    request.flushHeaders();
  });
}

describe("POST /v1/moderations with the official openai SDK", () => {
  it("moderates a string: OpenAI's shape, categories and names; illicit reported as not applied", async () => {
    const answer = await client().moderations.create({ model: "omni-moderation-latest", input: "I will kill you, you worthless idiot" });
    expect(answer.id).toMatch(/^modr_/);
    expect(answer.model).toBe(fixture.server.ctx.textClassifier.id);
    expect(answer.results).toHaveLength(1);
    const result = answer.results[0]!;
    expect(Object.keys(result.categories)).toEqual(OPENAI_NAMES);
    expect(Object.keys(result.category_scores)).toEqual(OPENAI_NAMES);
    expect(Object.keys(result.category_applied_input_types)).toEqual(OPENAI_NAMES);
    expect(result.flagged).toBe(true);
    expect(result.categories["harassment/threatening"] || result.categories.violence).toBe(true);
    for (const name of OPENAI_NAMES) {
      const applied = (result.category_applied_input_types as unknown as Record<string, string[]>)[name];
      expect(applied).toEqual(NOT_EVALUATED.includes(name) ? [] : ["text"]);
    }
    for (const name of NOT_EVALUATED) {
      expect((result.category_scores as unknown as Record<string, number>)[name]).toBe(0);
      expect((result.categories as unknown as Record<string, boolean>)[name]).toBe(false);
    }
  });

  it("reports a text in a language the model does not cover as OpenAI reports categories it did not apply", async () => {
    const answer = await client().moderations.create({ input: "Je vais te retrouver ce soir et tu vas le regretter." });
    const result = answer.results[0]!;
    expect(result.flagged).toBe(false);
    expect(Object.values(result.category_scores).every((score) => score === 0)).toBe(true);
    expect(Object.values(result.category_applied_input_types).every((types) => (types as string[]).length === 0)).toBe(true);
    // The service's own field says so, since OpenAI's zeros read as "harmless".
    expect((result as unknown as { not_evaluated: unknown }).not_evaluated).toEqual({ items: [{ index: 0, reason: "unsupported_language", language: "fr" }] });
  });

  it("says which strings or parts it did not evaluate, where OpenAI's shape cannot", async () => {
    const french = "Je vais te retrouver ce soir et tu vas le regretter.";
    const strings = await client().moderations.create({ input: ["have a lovely day", french] });
    expect(strings.results.map((r) => (r as unknown as { not_evaluated?: unknown }).not_evaluated)).toEqual([undefined, { items: [{ index: 1, reason: "unsupported_language", language: "fr" }] }]);
    // An English part and a French one: one result, every category applied to "text" (the English
    // part's), and the French part listed as not evaluated.
    const parts = await client().moderations.create({ input: [{ type: "text", text: "Thanks for the help yesterday, see you at lunch." }, { type: "text", text: french }] });
    const result = parts.results[0]! as unknown as { not_evaluated?: unknown; category_applied_input_types: Record<string, string[]> };
    expect(result.category_applied_input_types.violence).toEqual(["text"]);
    expect(result.not_evaluated).toEqual({ items: [{ index: 1, reason: "unsupported_language", language: "fr" }], combined: { reason: "unsupported_language", language: "fr" } });
    // Parts each too short to tell ("Je sais" is undetermined, "ou tu habites" read as English)
    // read as French together: the joined reading was not evaluated, and the result says so.
    const split = await client().moderations.create({ input: [{ type: "text", text: "Je sais" }, { type: "text", text: "ou tu habites" }] });
    expect((split.results[0] as unknown as { not_evaluated?: unknown }).not_evaluated).toEqual({ items: [], combined: { reason: "unsupported_language", language: "fr" } });
  });

  it("scores the same as POST /v1/moderate, category by category", async () => {
    const text = "you are a worthless idiot and everyone hates you";
    const answer = await client().moderations.create({ input: text });
    const native = await fetch(`${fixture.server.httpUrl}/v1/moderate`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": fixture.key },
      body: JSON.stringify({ input: [{ type: "text", text }] }),
    }).then((r) => r.json() as Promise<any>);
    const ours = native.results[0].categories;
    const scores = answer.results[0]!.category_scores as unknown as Record<string, number>;
    expect(scores.harassment).toBe(ours.harassment.score);
    expect(scores["self-harm/intent"]).toBe(ours.self_harm_intent.score);
    expect(scores["violence/graphic"]).toBe(ours.violence_graphic.score);
    expect(answer.results[0]!.categories.harassment).toBe(ours.harassment.flagged);
  });

  it("answers an array of strings with one result per string, in order", async () => {
    const answer = await client().moderations.create({ input: ["have a lovely day", "I want to kill myself tonight", "the weather is nice"] });
    expect(answer.results.map((r) => r.flagged)).toEqual([false, true, false]);
    expect(answer.results[1]!.categories["self-harm"] || answer.results[1]!.categories["self-harm/intent"]).toBe(true);
  });

  it("answers an array of text and image parts with ONE result; the image applies only to what the image model judges", async () => {
    const image = dataUri("image/png", await png(64, 48));
    const answer = await client().moderations.create({
      input: [{ type: "text", text: "a quiet picture of the sea" }, { type: "image_url", image_url: { url: image } }],
    });
    expect(answer.results).toHaveLength(1);
    const applied = answer.results[0]!.category_applied_input_types as unknown as Record<string, string[]>;
    expect(applied.sexual).toEqual(["text", "image"]);
    expect(applied.violence).toEqual(["text"]);
    expect(applied.illicit).toEqual([]);
    expect(answer.results[0]!.flagged).toBe(false);
  });

  it("answers an image alone: only sexual applied", async () => {
    const answer = await client().moderations.create({ input: [{ type: "image_url", image_url: { url: dataUri("image/png", await png(32, 32)) } }] });
    const applied = answer.results[0]!.category_applied_input_types as unknown as Record<string, string[]>;
    expect(Object.entries(applied).filter(([, types]) => types.length > 0)).toEqual([["sexual", ["image"]]]);
    expect(answer.results[0]!.category_scores.violence).toBe(0);
  });

  it("refuses a remote image URL clearly, in OpenAI's error shape with the stable code", async () => {
    const error = await client().moderations.create({ input: [{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const apiError = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(apiError.status).toBe(400);
    expect(apiError.code).toBe("remote_image_not_supported");
    expect(apiError.param).toBe("input");
    expect(apiError.type).toBe("invalid_request_error");
    expect(apiError.message).toMatch(/does not fetch images.*data URI/);
  });

  it("knows a remote URL with leading spaces or without a scheme (they were invalid_image)", async () => {
    for (const url of ["  https://example.com/cat.png", "//cdn.example.com/cat.png", "\tHTTP://EXAMPLE.COM/X.PNG"]) {
      const error = await client().moderations.create({ input: [{ type: "image_url", image_url: { url } }] }).catch((e: unknown) => e);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).code, url).toBe("remote_image_not_supported");
    }
  });

  it("refuses a bad key with 401 AuthenticationError, code invalid_api_key", async () => {
    const error = await client("mod_AAAAAAAA_" + "A".repeat(43)).moderations.create({ input: "hello" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("invalid_api_key");
  });

  it("turns validation errors into 400s with the stable code and the field at fault", async () => {
    const cases: Array<[unknown, string, string | null]> = [
      [Array.from({ length: 11 }, () => "hi"), "too_many_items", "input"],
      ["x".repeat(10_001), "text_too_long", "input"],
      [[], "invalid_request", "input"],
      [[{ type: "audio", audio: "x" }], "invalid_request", "input"],
      [["text", { type: "text", text: "part" }], "invalid_request", "input"],
      [[{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }], "invalid_image", "input"],
      // 415 and 413 elsewhere; the SDK has no class for them (a bare APIError), so 400 here.
      [[{ type: "image_url", image_url: { url: "data:image/bmp;base64,Qk0eAAAAAAAAABoAAAAMAAAAAQABAAEAGAAAAP8A" } }], "unsupported_image_type", "input"],
      [[{ type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(7_200_000)}` } }], "image_too_large", "input"],
    ];
    // An empty string is named as sent (it said "input[1].text", a field a string does not have).
    const emptyString = await client().moderations.create({ input: ["hi", ""] }).catch((e: unknown) => e);
    expect((emptyString as InstanceType<typeof OpenAI.APIError>).message).toMatch(/input\[1\] must be a non-empty string/);
    const emptyInput = await client().moderations.create({ input: "" }).catch((e: unknown) => e);
    expect((emptyInput as InstanceType<typeof OpenAI.APIError>).message).toMatch(/"input" must be a non-empty string/);
    for (const [input, code, param] of cases) {
      const error = await client().moderations.create({ input: input as string }).catch((e: unknown) => e);
      expect(error, JSON.stringify(input).slice(0, 80)).toBeInstanceOf(OpenAI.BadRequestError);
      expect({ code: (error as InstanceType<typeof OpenAI.APIError>).code, param: (error as InstanceType<typeof OpenAI.APIError>).param }).toEqual({ code, param });
    }
    // A body no ten items need (one image far over 5 MB) is refused by its announced length, also a 400 here.
    const huge = await announcedOnly(MAX_REQUEST_BYTES + 1);
    expect({ status: huge.status, code: huge.body.error?.code, type: huge.body.error?.type }).toEqual({ status: 400, code: "payload_too_large", type: "invalid_request_error" });
    const nested = JSON.parse(`${"[".repeat(40)}"hi"${"]".repeat(40)}`) as string;
    const tooDeep = await client().moderations.create({ input: nested }).catch((e: unknown) => e);
    expect(tooDeep).toBeInstanceOf(OpenAI.BadRequestError);
    expect((tooDeep as InstanceType<typeof OpenAI.APIError>).code).toBe("invalid_request");
    expect((tooDeep as InstanceType<typeof OpenAI.APIError>).message).toMatch(/nests JSON more than 32 levels deep/);
    const badModel = await client().moderations.create({ input: "hi", model: 7 as unknown as string }).catch((e: unknown) => e);
    expect((badModel as InstanceType<typeof OpenAI.APIError>).param).toBe("model");
    // null is an unset optional field, as an SDK sends one.
    expect((await client().moderations.create({ input: "hi", model: null as unknown as string })).results).toHaveLength(1);
    // Refusals name the caller's own fields, not the service's item fields (".text", ".base64").
    const message = async (input: unknown): Promise<string> => ((await client().moderations.create({ input: input as string }).catch((e: unknown) => e)) as Error).message;
    expect(await message("x".repeat(10_001))).toMatch(/^400 "input" is longer than 10000/);
    expect(await message(["hi", "x".repeat(10_001)])).toMatch(/^400 input\[1\] is longer than 10000/);
    expect(await message(["hi", 5])).toMatch(/input\[1\] must be a string, as the other entries are/);
  });
});

describe("POST /v1/moderations over plain HTTP", () => {
  it("signs the answer over the bytes sent, bound to the request body, like /v1/moderate", async () => {
    const response = await raw({ input: "hello there" });
    expect(response.status).toBe(200);
    const jwks = await fetchJwks(`${fixture.server.httpUrl}/.well-known/jwks.json`);
    const verified = await verifyModerationResponse({ requestBody: response.requestBody, status: 200, headers: response.headers, body: response.text, jwks });
    expect(verified.valid).toBe(true);
    expect(response.headers.get("x-ratelimit-limit")).toBe("1000000");
  });

  it("also names the request budget as OpenAI does, with the same figures", async () => {
    const response = await raw({ input: "hello there" });
    expect(response.headers.get("x-ratelimit-limit-requests")).toBe("1000000");
    expect(response.headers.get("x-ratelimit-remaining-requests")).toBe(response.headers.get("x-ratelimit-remaining"));
    expect(Number(response.headers.get("x-ratelimit-remaining-requests"))).toBeLessThan(1_000_000);
    const reset = Number(response.headers.get("x-ratelimit-reset"));
    expect(response.headers.get("x-ratelimit-reset-requests")).toBe(reset >= 60 ? `${Math.floor(reset / 60)}m${reset % 60}s` : `${reset}s`);
    // A refusal before the key is known carries no budget, under either name.
    const keyless = await raw({ input: "hello there" }, { authorization: "" });
    expect(keyless.status).toBe(401);
    expect(keyless.headers.get("x-ratelimit-remaining")).toBeNull();
    expect(keyless.headers.get("x-ratelimit-remaining-requests")).toBeNull();
  });

  it("names input as the param only when the error is about input", async () => {
    for (const body of [{ input: "hi", temperature: 1 }, ["hi"], "just a string"]) {
      const response = await raw(body);
      expect(response.status).toBe(400);
      expect(response.json.error).toMatchObject({ code: "invalid_request", param: null });
    }
    expect((await raw({ input: [] })).json.error).toMatchObject({ code: "invalid_request", param: "input" });
  });

  it("signs errors too, in OpenAI's shape", async () => {
    const response = await raw("{not json");
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: { message: 'The request body is not valid JSON: unexpected "n" at line 1, column 2; expected a double-quoted key or "}" (a key must be in double quotes).', type: "invalid_request_error", param: null, code: "invalid_request" } });
    const jwks = await fetchJwks(`${fixture.server.httpUrl}/.well-known/jwks.json`);
    expect((await verifyModerationResponse({ requestBody: response.requestBody, status: 400, headers: response.headers, body: response.text, jwks })).valid).toBe(true);
  });

  it("authenticates before it reads meaning into the body: no key is 401 whatever the body", async () => {
    const response = await raw("{not json", { authorization: "" });
    expect(response.status).toBe(401);
    expect(response.json.error).toMatchObject({ code: "missing_api_key", type: "invalid_request_error", param: null });
  });

  it("accepts X-API-Key as well, and a Bearer key on the other routes (usage is metered for this route)", async () => {
    const viaHeader = await raw({ input: "metered once" }, { authorization: "", "x-api-key": fixture.key });
    expect(viaHeader.status).toBe(200);
    const usage = async () =>
      fetch(`${fixture.server.httpUrl}/v1/usage?granularity=day`, { headers: { authorization: `Bearer ${fixture.key}` } }).then((r) => r.json() as Promise<any>);
    const before = (await usage()).totals.requests as number;
    await raw({ input: ["one", "two"] });
    let after = before;
    for (let i = 0; i < 200 && after === before; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = (await usage()).totals.requests;
    }
    expect(after).toBe(before + 1);
  });

  it("takes a Bearer key on /v1/moderate and Connect too; other Authorization schemes are no key", async () => {
    const native = await fetch(`${fixture.server.httpUrl}/v1/moderate`, {
      method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${fixture.key}` }, body: JSON.stringify({ input: [{ type: "text", text: "hi" }] }),
    });
    expect(native.status).toBe(200);
    const client = createClient(ModerationService, createConnectTransport({ baseUrl: fixture.server.httpUrl, httpVersion: "1.1" }));
    const answer = await client.moderate(create(ModerateRequestSchema, { input: [{ type: "text", text: "hi" }] }), { headers: { authorization: `bearer ${fixture.key}` } });
    expect(answer.results).toHaveLength(1);
    const basic = await raw({ input: "hi" }, { authorization: `Basic ${Buffer.from(`x:${fixture.key}`).toString("base64")}` });
    expect(basic.json.error.code).toBe("missing_api_key");
  });

  it("answers other methods with 405 in OpenAI's shape, and refuses other content types with 415", async () => {
    const get = await fetch(`${fixture.server.httpUrl}/v1/moderations`);
    expect(get.status).toBe(405);
    expect(((await get.json()) as any).error).toMatchObject({ code: "method_not_allowed", type: "invalid_request_error" });
    const text = await raw("input=hi", { "content-type": "text/plain" });
    expect(text.status).toBe(415);
    expect(text.json.error.code).toBe("unsupported_media_type");
  });

  // fastify refuses a Content-Type it cannot parse before the handler runs; the root error handler
  // answered /v1/moderate's shape with fastify's "Unsupported Media Type" (found by an audit).
  it.each(["application/json, text/plain", "/json", "application/"])("refuses Content-Type %j with the route's own 415, in OpenAI's shape, signed", async (contentType) => {
    const answer = await raw({ input: "hi" }, { "content-type": contentType });
    expect(answer.status).toBe(415);
    expect(answer.json).toEqual({ error: { message: "The request body must be JSON, sent with Content-Type: application/json.", type: "invalid_request_error", param: null, code: "unsupported_media_type" } });
    expect(answer.headers.get("signature")).toBeTruthy();
    const moderate = await fetch(`${fixture.server.httpUrl}/v1/moderate`, { method: "POST", headers: { "content-type": contentType, "x-api-key": fixture.key }, body: "{}" });
    expect(moderate.status).toBe(415);
    expect(await moderate.json()).toEqual({ error: { code: "unsupported_media_type", message: "The request body must be JSON, sent with Content-Type: application/json." } });
  });
});
