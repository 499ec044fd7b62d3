import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import { callModerate, PROTOCOLS, type ModerateBody, type Protocol } from "../support/protocol-clients.js";
import { startServerWithKey, type TestServer } from "../support/test-server.js";
import { PNG_DATA_URI } from "./error-expectations.js";

/** The API's category ids, from the spec: responses may use these and nothing else. */
const SPEC_CATEGORIES = [
  "harassment", "harassment_threatening", "hate", "hate_threatening", "self_harm", "self_harm_intent",
  "self_harm_instructions", "sexual", "sexual_minors", "violence", "violence_graphic",
];
/** Categories only a text model can judge: an image model reporting one would be making it up. */
const TEXT_ONLY_CATEGORIES = ["harassment", "harassment_threatening", "hate_threatening", "self_harm_intent", "self_harm_instructions"];

interface Score { score: number; flagged: boolean }
interface Span { start: number; end: number; text: string; weight: number }
interface Explanation { category: string; spans: Span[] }
interface Result { index: number; type: string; flagged: boolean; categories: Record<string, Score>; explanations: Explanation[]; models: string[] }
interface Combined { flagged: boolean; categories: Record<string, Score>; explanations: Explanation[] }
interface Response { id: string; model: string; flagged: boolean; results: Result[]; combined: Combined | undefined }

/** The same answer whatever the wire: grpc-js reports absent messages as null, JSON omits them. */
function normalize(body: any): Response {
  const scores = (categories: Record<string, any> = {}) =>
    Object.fromEntries(Object.entries(categories).map(([id, s]) => [id, { score: Number(s.score ?? 0), flagged: Boolean(s.flagged) }]));
  const explanations = (list: any[] = []): Explanation[] =>
    list.map((e) => ({ category: e.category, spans: (e.spans ?? []).map((s: any) => ({ start: s.start ?? 0, end: s.end ?? 0, text: s.text ?? "", weight: s.weight ?? 0 })) }));
  return {
    id: body.id,
    model: body.model,
    flagged: Boolean(body.flagged),
    results: (body.results ?? []).map((r: any) => ({
      index: r.index ?? 0,
      type: r.type,
      flagged: Boolean(r.flagged),
      categories: scores(r.categories),
      explanations: explanations(r.explanations),
      models: r.models ?? [],
    })),
    combined: body.combined == null ? undefined : { flagged: Boolean(body.combined.flagged), categories: scores(body.combined.categories), explanations: explanations(body.combined.explanations) },
  };
}

const text = (value: string) => ({ type: "text", text: value });
const image = () => ({ type: "image", base64: PNG_DATA_URI });
const BENIGN = "Thanks for the lovely dinner yesterday, see you on Sunday!";
const TOXIC = "😀😀 I will kill you, you worthless idiot. Watch your back.";

let server: TestServer;
let key: string;
beforeAll(async () => {
  ({ server, key } = await startServerWithKey());
});
afterAll(() => server?.close());

it("uses exactly the spec's category ids", () => {
  expect([...CATEGORY_IDS]).toEqual(SPEC_CATEGORIES);
});

describe.each(PROTOCOLS)("the Moderate response over %s", (protocol: Protocol) => {
  async function moderate(body: ModerateBody): Promise<Response> {
    const outcome = await callModerate(protocol, server, body, key);
    if (!outcome.ok) throw new Error(`moderate failed over ${protocol}: ${outcome.code} ${outcome.message}`);
    const response = normalize(outcome.body);
    checkInvariants(body, response);
    return response;
  }

  /** What must hold for every answer. */
  function checkInvariants(body: ModerateBody, response: Response): void {
    expect(response.id).toMatch(/^modr_[A-Za-z0-9_-]{16,}$/);
    expect(response.model).toBe(server.ctx.textClassifier.id);
    expect(response.results.map((r) => [r.index, r.type])).toEqual(body.input.map((item, i) => [i, item.type]));
    const layers: Array<{ flagged: boolean; categories: Record<string, Score> }> = [...response.results, ...(response.combined ? [response.combined] : [])];
    for (const layer of layers) {
      for (const [id, s] of Object.entries(layer.categories)) {
        expect(SPEC_CATEGORIES).toContain(id);
        expect(s.score).toBeGreaterThanOrEqual(0);
        expect(s.score).toBeLessThanOrEqual(1);
      }
      // A layer is flagged exactly when one of its categories is.
      expect(layer.flagged).toBe(Object.values(layer.categories).some((s) => s.flagged));
    }
    expect(response.flagged).toBe(layers.some((l) => l.flagged));
    // "combined" is there exactly when the request holds two or more text items.
    const texts = body.input.filter((i) => i.type === "text").length;
    expect(response.combined !== undefined).toBe(texts >= 2);
    for (const result of response.results) {
      if (result.type === "text") {
        expect(result.models).toContain(response.model);
        expect(Object.keys(result.categories).length).toBeGreaterThan(0);
        checkExplanations(result, body.input[result.index]!.text!);
      } else {
        // Nothing evaluated means nothing reported: no made-up scores.
        if (result.models.length === 0) expect(result.categories).toEqual({});
        if (Object.keys(result.categories).length > 0) expect(result.models.length).toBeGreaterThan(0);
        expect(result.models).not.toContain(response.model);
        for (const id of TEXT_ONLY_CATEGORIES) expect(result.categories).not.toHaveProperty(id);
      }
    }
  }

  /** Explanations name flagged categories, and spans are code-point offsets into the item's text. */
  function checkExplanations(result: Result, itemText: string): void {
    const codePoints = Array.from(itemText);
    for (const explanation of result.explanations) {
      expect(result.categories[explanation.category]?.flagged, explanation.category).toBe(true);
      for (const span of explanation.spans) {
        expect(span.start).toBeLessThan(span.end);
        expect(span.end).toBeLessThanOrEqual(codePoints.length);
        expect(span.text).toBe(codePoints.slice(span.start, span.end).join(""));
      }
    }
  }

  it("answers a benign text: not flagged, one text result, no combined layer", async () => {
    const response = await moderate({ input: [text(BENIGN)] });
    expect(response.flagged).toBe(false);
    expect(response.results).toHaveLength(1);
    expect(response.results[0]).toMatchObject({ index: 0, type: "text", flagged: false, explanations: [] });
    expect(response.combined).toBeUndefined();
  });

  it("flags a threatening, insulting text and explains it with code-point spans", async () => {
    const response = await moderate({ input: [text(TOXIC)] });
    expect(response.flagged).toBe(true);
    const [result] = response.results;
    expect(result!.flagged).toBe(true);
    expect(result!.explanations.length).toBeGreaterThan(0);
  });

  it("gives every moderation its own id", async () => {
    const responses = await Promise.all(Array.from({ length: 8 }, () => moderate({ input: [text(BENIGN)] })));
    expect(new Set(responses.map((r) => r.id)).size).toBe(8);
  });

  it("returns the same answer for the same input, apart from the id", async () => {
    const body = { input: [text(TOXIC), image(), text(BENIGN), text("you are pathetic")] };
    const first = await moderate(body);
    const second = await moderate(body);
    expect(second.id).not.toBe(first.id);
    expect({ ...second, id: "" }).toEqual({ ...first, id: "" });
  });

  it("reports results in input order, and a combined layer for two or more texts", async () => {
    const body = { input: [text("first item"), image(), text(TOXIC), text("fourth item"), image()] };
    const response = await moderate(body);
    expect(response.results.map((r) => r.type)).toEqual(["text", "image", "text", "text", "image"]);
    expect(response.results[2]!.flagged).toBe(true);
    expect(response.combined).toBeDefined();
    // A flagged item flags the answer, whatever the others say.
    expect(response.flagged).toBe(true);
  });

  it.each([
    ["one text", [text("a")], false],
    ["one text and one image", [text("a"), image()], false],
    ["only an image", [image()], false],
    ["two texts", [text("a"), text("b")], true],
    ["two texts around an image", [text("a"), image(), text("b")], true],
    ["ten texts", Array.from({ length: 10 }, (_, i) => text(`line ${i}`)), true],
  ])("has a combined layer for %s: %s", async (_name, input, expected) => {
    const response = await moderate({ input });
    expect(response.combined !== undefined).toBe(expected);
  });

  it("reports an image item without fabricated categories", async () => {
    const response = await moderate({ input: [image()] });
    const [result] = response.results;
    expect(result).toMatchObject({ index: 0, type: "image" });
    // Until an image model is wired in, nothing is evaluated: no categories, not flagged.
    if (result!.models.length === 0) expect(result).toMatchObject({ flagged: false, categories: {} });
  });
});

describe("the JSON route's response body", () => {
  it("uses the proto field names, emits defaults, and nothing else", async () => {
    const outcome = await callModerate("json", server, { input: [text(BENIGN), text("second")] }, key);
    if (!outcome.ok) throw new Error(outcome.message);
    expect(outcome.headers["content-type"]).toMatch(/^application\/json/);
    const body = outcome.body as Record<string, any>;
    expect(Object.keys(body).sort()).toEqual(["combined", "flagged", "id", "model", "results"]);
    expect(body.flagged).toBe(false);
    expect(body.results[0]).toMatchObject({ index: 0, type: "text", flagged: false, explanations: [], models: [expect.any(String)] });
    expect(Object.keys(body.combined).sort()).toEqual(["categories", "explanations", "flagged"]);
    for (const score of Object.values(body.results[0].categories) as Score[]) {
      expect(Object.keys(score).sort()).toEqual(["flagged", "score"]);
      expect(typeof score.score).toBe("number");
    }
  });

  it("omits combined for a single text", async () => {
    const outcome = await callModerate("json", server, { input: [text(BENIGN)] }, key);
    expect(outcome.ok && "combined" in outcome.body).toBe(false);
  });
});

it("Connect's JSON writes every field as /v1/moderate does: a 0 or false is there, not left out", async () => {
  // Left out (proto3 JSON's default), a category scored 0 read `{}` and an unflagged answer had no
  // `flagged`: a caller reading the JSON could take them for "not evaluated" (docs/api.md).
  const response = await fetch(`${server.httpUrl}/moderation.v1.ModerationService/Moderate`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify({ input: [text(BENIGN)] }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as any;
  expect(body.flagged).toBe(false);
  expect(body.results[0].index).toBe(0);
  expect(body.results[0].flagged).toBe(false);
  for (const [id, entry] of Object.entries(body.results[0].categories as Record<string, object>)) {
    expect(Object.keys(entry).sort(), id).toEqual(["flagged", "score"]);
  }
});
