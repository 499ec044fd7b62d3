import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ModerateRequestSchema, ModerationService } from "../../gen/moderation/v1/moderation_pb.js";
import { startServerWithKey, type TestServer } from "../support/test-server.js";
import { llamaGuard } from "./fake-guard-servers.js";
import { startFakeOpenAiServer, type Behaviour, type FakeOpenAiServer } from "./fake-openai-server.js";

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
beforeAll(async () => {
  guard = await startFakeOpenAiServer(llamaGuard());
  cascade = await startServerWithKey({
    env: {
      TEXT_PROVIDER: "llama-guard", TEXT_PROVIDER_BASE_URL: guard.baseUrl, TEXT_PROVIDER_MODEL: "llama-guard3:8b", TEXT_PROVIDER_MODE: "cascade",
      TEXT_PROVIDER_TIMEOUT_MS: "1000", TEXT_PROVIDER_TOTAL_TIMEOUT_MS: "2500", TEXT_PROVIDER_MAX_RETRIES: "1",
    },
  });
});
afterAll(async () => {
  await cascade?.server.close();
  await guard?.close();
});
afterEach(() => {
  guard.requests.length = 0;
  guard.setDefault(llamaGuard());
});

const asked = () => guard.requests.map((r) => r.body.messages[0].content as string).sort();
async function moderate(body: unknown) {
  const response = await fetch(`${cascade.server.httpUrl}/v1/moderate`, {
    method: "POST", headers: { "content-type": "application/json", "x-api-key": cascade.key }, body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as any;
}
const texts = (list: string[]) => list.map((text) => ({ type: "text", text }));

describe("the combined layer under TEXT_PROVIDER_MODE=cascade", () => {
  it("the embedded model alone flags the joined text (mode off)", async () => {
    const off = await moderate({ input: texts(ITEMS), text_provider_mode: "off" });
    expect(off.combined.categories.violence.flagged).toBe(true);
    expect(guard.requests).toHaveLength(0);
  });

  it("sends an unsure combined text to the guard model, and a flag the guard cleared stays cleared", async () => {
    const body = await moderate({ input: texts(ITEMS) });
    // The unsure item and the unsure combined text; not the sure item.
    expect(asked()).toEqual([ITEMS[0], JOINED]);
    expect(body.results[0].categories.violence).toEqual({ score: 0, flagged: false });
    expect(body.combined.categories.violence).toEqual({ score: 0, flagged: false });
    expect(body.flagged).toBe(false);
  });

  it("does the same over Connect", async () => {
    const client = createClient(ModerationService, createConnectTransport({ baseUrl: cascade.server.httpUrl, httpVersion: "1.1" }));
    const answer = await client.moderate(create(ModerateRequestSchema, { input: texts(ITEMS) }), { headers: { "x-api-key": cascade.key } });
    expect(answer.combined?.categories.violence).toMatchObject({ score: 0, flagged: false });
    expect(answer.flagged).toBe(false);
  });

  it("sends no combined text for an array of strings on /v1/moderations", async () => {
    const client = new OpenAI({ apiKey: cascade.key, baseURL: `${cascade.server.httpUrl}/v1`, maxRetries: 0 });
    await client.moderations.create({ input: ITEMS });
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
