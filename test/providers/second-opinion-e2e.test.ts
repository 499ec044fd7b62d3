import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ModerateRequestSchema, ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import type { TextClassifier } from "../../src/classifiers/classifier.js";
import { startServerWithKey, type TestServer } from "../support/test-server.js";
import { pollUntil } from "../support/poll.js";
import { llamaGuard } from "./fake-guard-servers.js";
import { startFakeOpenAiServer, status, type FakeOpenAiServer } from "./fake-openai-server.js";

/**
 * A text whose embedded scores are all sure (far below the default band [0.2, 0.8)), and one with
 * a score in the band: picked from candidates with the server's own model when the file starts,
 * so a retrained model does not break the test.
 */
const SURE_CANDIDATES = ["the weather is nice today", "see you at the meeting tomorrow", "have a lovely day", "thanks, that helps a lot"];
const UNSURE_CANDIDATES = ["I hate mondays", "you people are the worst", "you are kind of annoying", "I could kill for a pizza", "shut up", "go away loser", "this is a stupid idea", "that movie was so violent and bloody"];
let SURE = "";
let UNSURE = "";
async function pickTexts(classifier: TextClassifier): Promise<void> {
  const scores = async (text: string) => {
    const verdict = await classifier.classify(text);
    return verdict.notEvaluated ? [] : Object.values(verdict.categories).map((c) => c!.score);
  };
  for (const text of SURE_CANDIDATES) {
    const list = await scores(text);
    if (list.length === 11 && list.every((score) => score < 0.1)) { SURE = text; break; }
  }
  for (const text of UNSURE_CANDIDATES) {
    if ((await scores(text)).some((score) => score >= 0.2 && score < 0.8)) { UNSURE = text; break; }
  }
  if (!SURE || !UNSURE) throw new Error(`no candidate text is ${SURE ? "unsure" : "sure"} under this model: add one`);
}

let guard: FakeOpenAiServer;
const servers: TestServer[] = [];
async function serverWith(env: Record<string, string>) {
  const started = await startServerWithKey({
    env: {
      TEXT_PROVIDER: "llama-guard", TEXT_PROVIDER_BASE_URL: guard.baseUrl, TEXT_PROVIDER_MODEL: "llama-guard3:8b",
      TEXT_PROVIDER_TIMEOUT_MS: "1000", TEXT_PROVIDER_TOTAL_TIMEOUT_MS: "2500", TEXT_PROVIDER_MAX_RETRIES: "1", ...env,
    },
  });
  servers.push(started.server);
  return started;
}
let cascade: { server: TestServer; key: string };
beforeAll(async () => {
  guard = await startFakeOpenAiServer(llamaGuard());
  cascade = await serverWith({ TEXT_PROVIDER_MODE: "cascade" });
  await pickTexts(cascade.server.ctx.textClassifier);
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await guard.close();
});
afterEach(() => {
  guard.requests.length = 0;
  guard.setDefault(llamaGuard());
});

async function moderate(target: { server: TestServer; key: string }, body: unknown) {
  const response = await fetch(`${target.server.httpUrl}/v1/moderate`, {
    method: "POST", headers: { "content-type": "application/json", "x-api-key": target.key }, body: JSON.stringify(body),
  });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as any };
}
const texts = (...list: string[]) => list.map((text) => ({ type: "text", text }));

describe("cascade (TEXT_PROVIDER_MODE=cascade) on POST /v1/moderate", () => {
  it("sends only the unsure item to the guard model and reports who judged what", async () => {
    guard.setDefault(llamaGuard(["S10"]));
    const { status: code, body } = await moderate(cascade, { input: texts(SURE, UNSURE) });
    expect(code).toBe(200);
    // Of the items (the combined text goes by the same rule: combined-second-opinion-e2e.test.ts).
    expect(guard.requests.map((r) => r.body.messages[0].content).filter((text: string) => !text.includes("\n\n"))).toEqual([UNSURE]);
    const textModel = cascade.server.ctx.textClassifier.id;
    expect(body.results[0].models).toEqual([textModel]);
    expect(body.results[0].second_opinion).toBeUndefined();
    expect(body.results[1].models).toEqual([textModel, "llama-guard3:8b"]);
    expect(body.results[1].second_opinion).toMatchObject({ provider: "llama-guard", model: "llama-guard3:8b", trigger: "uncertain", seconded: true, error_code: "" });
    // Llama Guard's S10 flags hate (deciding it if the embedded score was unsure, else the higher score and either flag);
    // harassment has no Llama Guard counterpart: the embedded model's alone.
    expect(body.results[1].categories.hate).toEqual({ score: 1, flagged: true });
    expect([undefined, { models: ["llama-guard3:8b"] }]).toContainEqual(body.results[1].second_opinion.category_models.hate);
    expect(body.results[1].second_opinion.category_models.harassment).toEqual({ models: [textModel] });
    expect(body.flagged).toBe(true);
  });

  it("a request can ask for always or off", async () => {
    await moderate(cascade, { input: texts(SURE, UNSURE), text_provider_mode: "always" });
    // Both items, and their combined text.
    expect(guard.requests).toHaveLength(3);
    guard.requests.length = 0;
    const off = await moderate(cascade, { input: texts(UNSURE), text_provider_mode: "off" });
    expect(guard.requests).toHaveLength(0);
    expect(off.body.results[0].second_opinion).toBeUndefined();
  });

  it("refuses an unknown mode with invalid_request", async () => {
    const { status: code, body } = await moderate(cascade, { input: texts(SURE), text_provider_mode: "sometimes" });
    expect({ code, error: body.error.code }).toEqual({ code: 400, error: "invalid_request" });
  });

  it("by default answers with the embedded verdict marked not seconded when the guard model fails (500s, then garbage)", async () => {
    guard.setDefault(status(500));
    const { status: code, body } = await moderate(cascade, { input: texts(UNSURE) });
    expect(code).toBe(200);
    expect(guard.requests).toHaveLength(2); // one retry
    expect(body.results[0].second_opinion).toMatchObject({ seconded: false, error_code: "provider_unavailable", category_models: {} });
    expect(body.results[0].models).toEqual([cascade.server.ctx.textClassifier.id]);
    expect(Object.keys(body.results[0].categories)).toHaveLength(11); // the embedded verdict, all of it
    // Each attempt is counted, as the vision provider's are.
    expect(await cascade.server.ctx.metrics.render()).toMatch(/moderation_provider_calls_total\{provider="text:llama-guard",outcome="http"\} [2-9]/);
  });

  it("does not hang on a guard model that never answers", async () => {
    guard.setDefault(guard.silence());
    const started = performance.now();
    const { status: code, body } = await moderate(cascade, { input: texts(UNSURE) });
    expect(code).toBe(200);
    expect(body.results[0].second_opinion.seconded).toBe(false);
    expect(performance.now() - started).toBeLessThan(10_000); // 2.5 s total limit, with room for a loaded machine
    guard.releaseHeld();
  });
});

describe("a language the embedded model does not cover", () => {
  // Written for this test; the embedded model covers English only (models/languages.md).
  const FRENCH = "Je vais te retrouver ce soir et tu vas le regretter.";

  it("goes to the guard model in cascade mode, which then judges every category it has", async () => {
    guard.setDefault(llamaGuard(["S1"]));
    const { body } = await moderate(cascade, { input: texts(FRENCH) });
    expect(guard.requests.map((r) => r.body.messages[0].content)).toEqual([FRENCH]);
    const result = body.results[0];
    expect(result.second_opinion).toMatchObject({ trigger: "language", seconded: true });
    // The embedded model evaluated nothing: every category reported is the guard model's.
    expect(Object.keys(result.categories).sort()).toEqual(["hate", "self_harm", "sexual", "sexual_minors", "violence"]);
    expect(Object.values(result.second_opinion.category_models)).toEqual(Array(5).fill({ models: ["llama-guard3:8b"] }));
    expect(result.categories.violence).toEqual({ score: 1, flagged: true });
    expect(result.language).toBe("fr");
    expect(body.flagged).toBe(true);
    // Llama Guard has no counterpart for the other six categories: nobody read the French for
    // them, so the item and the answer still say so, and absent is not 0.
    expect(result.not_evaluated).toMatchObject({ reason: "unsupported_language", language: "fr" });
    expect(body.not_evaluated.items).toEqual([expect.objectContaining({ index: 0, reason: "unsupported_language" })]);
  });

  it("stays not evaluated with mode off", async () => {
    const { body } = await moderate(cascade, { input: texts(FRENCH), text_provider_mode: "off" });
    expect(guard.requests).toHaveLength(0);
    expect(body.results[0].categories).toEqual({});
    expect(body.results[0].not_evaluated).toMatchObject({ reason: "unsupported_language", language: "fr" });
  });
});

describe("a caller that hangs up", () => {
  it("cancels the guard-model call it was waiting for", async () => {
    // Limits far beyond the test: only the caller's leaving can end the call.
    const patient = await serverWith({ TEXT_PROVIDER_MODE: "always", TEXT_PROVIDER_TIMEOUT_MS: "30000", TEXT_PROVIDER_TOTAL_TIMEOUT_MS: "30000" });
    guard.setDefault(guard.silence());
    const caller = new AbortController();
    const pending = fetch(`${patient.server.httpUrl}/v1/moderate`, {
      method: "POST", headers: { "content-type": "application/json", "x-api-key": patient.key },
      body: JSON.stringify({ input: texts(UNSURE) }), signal: caller.signal,
    }).catch(() => undefined);
    // Polled with a generous cap, by the clock (the suite runs in parallel on 2 cores, and this
    // server is fresh); the limits above end the call only after 30 s.
    await pollUntil(() => guard.inFlight > 0 && guard.requests.length > 0); // arrived, body read
    expect(guard.inFlight).toBe(1);
    caller.abort();
    await pending;
    await pollUntil(() => guard.inFlight === 0);
    expect(guard.inFlight).toBe(0);
    expect(guard.requests).toHaveLength(1);
    guard.releaseHeld();
  }, 60_000); // a server start and two polls on a loaded machine
});

describe("the same capability on Connect, from the same implementation", () => {
  it("honours the request field text_provider_mode", async () => {
    guard.setDefault(llamaGuard(["S1"]));
    const client = createClient(ModerationService, createConnectTransport({ baseUrl: cascade.server.httpUrl, httpVersion: "1.1" }));
    const answer = await client.moderate(create(ModerateRequestSchema, { input: texts(SURE), textProviderMode: "always" }), { headers: { "x-api-key": cascade.key } });
    expect(guard.requests).toHaveLength(1);
    expect(answer.results[0]!.secondOpinion?.trigger).toBe("always");
    expect(answer.results[0]!.categories.violence).toMatchObject({ score: 1, flagged: true });
  });
});

describe("the OpenAI-compatible route", () => {
  it("includes the guard model's second opinion", async () => {
    guard.setDefault(llamaGuard(["S10"]));
    const client = new OpenAI({ apiKey: cascade.key, baseURL: `${cascade.server.httpUrl}/v1`, maxRetries: 0 });
    const answer = await client.moderations.create({ input: [SURE, UNSURE] });
    expect(answer.results.map((r) => r.categories.hate)).toEqual([false, true]);
    expect(guard.requests).toHaveLength(1);
    expect(answer.results.map((r) => (r as { not_seconded?: unknown }).not_seconded)).toEqual([undefined, undefined]);
  });

  it("says which input the failed guard model did not second (TEXT_PROVIDER_ON_FAILURE=embedded)", async () => {
    guard.setDefault(status(500));
    const client = new OpenAI({ apiKey: cascade.key, baseURL: `${cascade.server.httpUrl}/v1`, maxRetries: 0 });
    const strings = await client.moderations.create({ input: [SURE, UNSURE] });
    // The sure string was never sent; the unsure one was, and the call failed: its embedded verdict stands alone.
    expect(strings.results.map((r) => (r as { not_seconded?: unknown }).not_seconded)).toEqual([undefined, { items: [{ index: 1, error_code: "provider_unavailable" }] }]);
    const parts = await client.moderations.create({ input: [{ type: "text", text: SURE }, { type: "text", text: UNSURE }] });
    expect((parts.results[0] as { not_seconded?: unknown }).not_seconded).toEqual({ items: [{ index: 1, error_code: "provider_unavailable" }] });
  });
});

describe("TEXT_PROVIDER_ON_FAILURE=fail", () => {
  it("fails the request with 503 provider_unavailable", async () => {
    const failing = await serverWith({ TEXT_PROVIDER_MODE: "always", TEXT_PROVIDER_ON_FAILURE: "fail" });
    guard.setDefault(status(429, { error: { message: "busy" } }, { "retry-after": "0" }));
    const { status: code, retryAfter, body } = await moderate(failing, { input: texts(SURE) });
    // With Retry-After, like every 503 (it had none: found by an audit, session 52): the provider's
    // own (0 s here, passed on as at least 1), else 2 s.
    expect({ code, error: body.error.code, retryAfter }).toEqual({ code: 503, error: "provider_unavailable", retryAfter: "1" });
    guard.setDefault(status(500, { error: { message: "down" } }));
    expect((await moderate(failing, { input: texts(SURE) })).retryAfter).toBe("2");
  });
});

describe("this service's own /v1/moderations as the provider", () => {
  it("speaks OpenAI's moderation API both ways: one instance seconds another", async () => {
    const upstream = await startServerWithKey();
    servers.push(upstream.server);
    const front = await startServerWithKey({
      env: { TEXT_PROVIDER: "openai-moderation", TEXT_PROVIDER_BASE_URL: `${upstream.server.httpUrl}/v1`, TEXT_PROVIDER_API_KEY: upstream.key, TEXT_PROVIDER_MODE: "always" },
    });
    servers.push(front.server);
    const { status: code, body } = await moderate(front, { input: texts("I will find you and hurt you") });
    expect(code).toBe(200);
    const result = body.results[0];
    expect(result.second_opinion).toMatchObject({ provider: "openai-moderation", model: "omni-moderation-latest", trigger: "always", seconded: true, category_models: {} });
    // The same model on both sides: every category judged by both, the same scores.
    const plain = await moderate(upstream, { input: texts("I will find you and hurt you") });
    expect(Object.fromEntries(Object.entries(result.categories).map(([c, v]: [string, any]) => [c, v.score])))
      .toEqual(Object.fromEntries(Object.entries(plain.body.results[0].categories).map(([c, v]: [string, any]) => [c, v.score])));
    expect(result.flagged).toBe(true);
    // Text the upstream does not cover comes back judged in no category: an answer, not a broken
    // one (it was retried as malformed and opened the circuit breaker, and English went unseconded),
    // but no second opinion either: not seconded, no error, and the guard is not among the models.
    for (let i = 0; i < 4; i++) {
      const french = await moderate(front, { input: texts("Mais je vais te tuer demain matin, sale con.") });
      expect(french.status).toBe(200);
      expect(french.body.results[0].second_opinion).toMatchObject({ seconded: false, error_code: "", category_models: {} });
      expect(french.body.results[0].models).toEqual([expect.stringMatching(/^text-/)]);
      expect(french.body.results[0].not_evaluated).toMatchObject({ reason: "unsupported_language" });
    }
    const after = await moderate(front, { input: texts("I will find you and hurt you") });
    expect(after.body.results[0].second_opinion).toMatchObject({ seconded: true, error_code: "" });
  }, 90_000); // two more servers on a loaded machine
});

describe("without a provider", () => {
  it("refuses a mode other than off with 501 provider_not_configured", async () => {
    const plain = await startServerWithKey();
    servers.push(plain.server);
    const { status: code, body } = await moderate(plain, { input: texts(SURE), text_provider_mode: "cascade" });
    expect({ code, error: body.error.code }).toEqual({ code: 501, error: "provider_not_configured" });
    expect((await moderate(plain, { input: texts(SURE), text_provider_mode: "off" })).status).toBe(200);
  });
});
