import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ModerateRequestSchema, ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import { startServerWithKey, type TestServer } from "../support/test-server.js";
import { llamaGuard } from "./fake-guard-servers.js";
import { startFakeOpenAiServer, status, type Behaviour, type FakeOpenAiServer } from "./fake-openai-server.js";

/**
 * The combined layer under a guard model (Llama Guard's wire format, a real HTTP server): it
 * is judged as an item is. Found by an audit: "I will kill" was cleared by the guard as an item,
 * and came back flagged through the combined layer, the embedded model's alone, as soon as the
 * request held another text.
 */
// The embedded model flags violence on "I will kill" (0.56) and on it joined with "tonight"
// (0.54), both in the uncertain band [0.2, 0.8); "tonight" alone is sure and harmless.
const ITEMS = ["I will kill", "tonight"];
const JOINED = "I will kill\n\ntonight";

let guard: FakeOpenAiServer;
let cascade: { server: TestServer; key: string };
let failing: { server: TestServer; key: string };
const serverWith = (env: Record<string, string>) => startServerWithKey({
  env: {
    TEXT_PROVIDER: "llama-guard", TEXT_PROVIDER_BASE_URL: guard.baseUrl, TEXT_PROVIDER_MODEL: "llama-guard3:8b", TEXT_PROVIDER_MODE: "cascade",
    TEXT_PROVIDER_TIMEOUT_MS: "1000", TEXT_PROVIDER_TOTAL_TIMEOUT_MS: "2500", TEXT_PROVIDER_MAX_RETRIES: "1", ...env,
  },
});
beforeAll(async () => {
  guard = await startFakeOpenAiServer(llamaGuard());
  cascade = await serverWith({});
  // Its own breaker: the failed calls below must not make the items' calls fail fast too.
  failing = await serverWith({ TEXT_PROVIDER_ON_FAILURE: "embedded", TEXT_PROVIDER_CIRCUIT_FAILURES: "1000" });
});
afterAll(async () => {
  await cascade?.server.close();
  await failing?.server.close();
  await guard?.close();
});
afterEach(() => {
  guard.requests.length = 0;
  guard.setDefault(llamaGuard());
});

const asked = () => guard.requests.map((r) => r.body.messages[0].content as string).sort();
async function moderate(body: unknown, on = cascade) {
  const response = await fetch(`${on.server.httpUrl}/v1/moderate`, {
    method: "POST", headers: { "content-type": "application/json", "x-api-key": on.key }, body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as any;
}
const texts = (list: string[]) => list.map((text) => ({ type: "text", text }));
const connectClient = (on: { server: TestServer }) => createClient(ModerationService, createConnectTransport({ baseUrl: on.server.httpUrl, httpVersion: "1.1" }));
const openAi = (on: { server: TestServer; key: string }) => new OpenAI({ apiKey: on.key, baseURL: `${on.server.httpUrl}/v1`, maxRetries: 0 });
const parts = (list: string[]) => list.map((text) => ({ type: "text" as const, text }));
const SECONDED = { provider: "llama-guard", model: "llama-guard3:8b", trigger: "uncertain", seconded: true, error_code: "" };
const FAILED = { provider: "llama-guard", model: "llama-guard3:8b", trigger: "uncertain", seconded: false, error_code: "provider_unavailable", category_models: {} };

describe("the combined layer under TEXT_PROVIDER_MODE=cascade", () => {
  it("the embedded model alone flags the joined text (mode off)", async () => {
    const off = await moderate({ input: texts(ITEMS), text_provider_mode: "off" });
    expect(off.combined.categories.violence.flagged).toBe(true);
    expect(guard.requests).toHaveLength(0);
    // Not sent: no second opinion on the layer, as on the items.
    expect("second_opinion" in off.combined).toBe(false);
    expect(off.results.map((r: any) => "second_opinion" in r)).toEqual([false, false]);
  });

  it("sends an unsure combined text to the guard model, and a flag the guard cleared stays cleared", async () => {
    const body = await moderate({ input: texts(ITEMS) });
    // The unsure item and the unsure combined text; not the sure item.
    expect(asked()).toEqual([ITEMS[0], JOINED]);
    expect(body.results[0].categories.violence).toEqual({ score: 0, flagged: false });
    expect(body.combined.categories.violence).toEqual({ score: 0, flagged: false });
    expect(body.flagged).toBe(false);
    // The layer says the guard model seconded it; violence is the guard's verdict, harassment
    // (no Llama Guard counterpart) the embedded model's.
    expect(body.combined.second_opinion).toMatchObject(SECONDED);
    expect(body.combined.second_opinion.category_models.violence).toEqual({ models: ["llama-guard3:8b"] });
    expect(body.combined.second_opinion.category_models.harassment).toEqual({ models: [cascade.server.ctx.textClassifier.id] });
  });

  it("does the same over Connect", async () => {
    const json = await moderate({ input: texts(ITEMS) });
    const answer = await connectClient(cascade).moderate(create(ModerateRequestSchema, { input: texts(ITEMS) }), { headers: { "x-api-key": cascade.key } });
    expect(answer.combined?.categories.violence).toMatchObject({ score: 0, flagged: false });
    expect(answer.flagged).toBe(false);
    const opinion = answer.combined?.secondOpinion;
    expect(opinion && { provider: opinion.provider, model: opinion.model, trigger: opinion.trigger, seconded: opinion.seconded, error_code: opinion.errorCode })
      .toEqual({ ...SECONDED });
    expect(Object.fromEntries(Object.entries(opinion!.categoryModels).map(([c, m]) => [c, { models: m.models }]))).toEqual(json.combined.second_opinion.category_models);
  });

  it("reports nothing failed on /v1/moderations for an array of parts the guard model answered", async () => {
    const answer = await openAi(cascade).moderations.create({ input: parts(ITEMS) });
    expect(answer.results.map((r) => (r as { not_seconded?: unknown }).not_seconded)).toEqual([undefined]);
  });

  it("sends no combined text for an array of strings on /v1/moderations", async () => {
    await openAi(cascade).moderations.create({ input: ITEMS });
    expect(asked()).toEqual([ITEMS[0]]);
  });
});

describe("the combined layer under mode always", () => {
  it("is always sent, and the guard model's reading of the joined text counts", async () => {
    // A guard that sees harm only in the joined text: split harm is caught there, as in the embedded model's layer.
    const joinedUnsafe: Behaviour = (req, res, recorded) =>
      (String(recorded.body.messages[0].content).includes("\n\n") ? llamaGuard(["S1"]) : llamaGuard())(req, res, recorded);
    guard.setDefault(joinedUnsafe);
    const body = await moderate({ input: texts(["see you", "tonight"]), text_provider_mode: "always" });
    expect(asked()).toEqual(["see you", "see you\n\ntonight", "tonight"]);
    expect(body.results.map((r: any) => r.categories.violence.flagged)).toEqual([false, false]);
    expect(body.combined.categories.violence).toEqual({ score: 1, flagged: true });
    expect(body.flagged).toBe(true);
  });
});

describe("a guard model that fails on the combined text (TEXT_PROVIDER_ON_FAILURE=embedded)", () => {
  // It answers the item and fails on the joined text: the item shows the guard cleared violence,
  // the layer flags it on the embedded reading alone, and before its second_opinion said nothing of why.
  const failsJoined: Behaviour = (req, res, recorded) =>
    (String(recorded.body.messages[0].content).includes("\n\n") ? status(500) : llamaGuard())(req, res, recorded);

  it("marks the layer not seconded, with the error code, over JSON", async () => {
    guard.setDefault(failsJoined);
    const body = await moderate({ input: texts(ITEMS) }, failing);
    expect(body.results[0].second_opinion).toMatchObject(SECONDED);
    expect(body.results[0].categories.violence).toEqual({ score: 0, flagged: false });
    expect(body.combined.second_opinion).toEqual(FAILED);
    // The embedded reading, which the guard model did not second.
    expect(body.combined.categories.violence.flagged).toBe(true);
    expect(body.flagged).toBe(true);
  });

  it("and over Connect", async () => {
    guard.setDefault(failsJoined);
    const answer = await connectClient(failing).moderate(create(ModerateRequestSchema, { input: texts(ITEMS) }), { headers: { "x-api-key": failing.key } });
    const opinion = answer.combined?.secondOpinion;
    expect(opinion && { provider: opinion.provider, model: opinion.model, trigger: opinion.trigger, seconded: opinion.seconded, error_code: opinion.errorCode, category_models: opinion.categoryModels })
      .toEqual(FAILED);
    expect(answer.results[0]?.secondOpinion?.seconded).toBe(true);
  });

  it("and on /v1/moderations, where an array of parts folds the layer into its one result", async () => {
    guard.setDefault(failsJoined);
    const answer = await openAi(failing).moderations.create({ input: parts(ITEMS) });
    // The items' calls answered; the joined text's failed, and its unseconded flag is in the fold.
    expect((answer.results[0] as { not_seconded?: unknown }).not_seconded).toEqual({ items: [], combined: { error_code: "provider_unavailable" } });
    expect(answer.results[0]!.categories.violence).toBe(true);
  });
});
