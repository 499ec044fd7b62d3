import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { ModerateRequestSchema, ModerationService, type ModerateResponse } from "../../gen/moderation/v1/moderation_pb.js";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import { fetchJwks } from "../../src/client/fetch-jwks.js";
import { verifyModerationResponse } from "../../src/client/verify-response.js";
import { verifyConnectResult } from "../../src/client/verify-rpc-response.js";
import type { Jwks } from "../../src/signing/jwk.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

type Categories = Record<string, { score: number; flagged: boolean }>;
const TEXTS = ["I will hurt you, you idiot", "have a lovely day"];
const ALL = (value: number | "off") => Object.fromEntries(CATEGORY_IDS.map((id) => [id, value]));

let server: TestServer;
let jwks: Jwks;
beforeAll(async () => {
  server = await startTestServer();
  jwks = await fetchJwks(`${server.httpUrl}/.well-known/jwks.json`);
});
afterAll(async () => server?.close());

async function moderateJson(key: string, texts = TEXTS) {
  const body = JSON.stringify({ input: texts.map((text) => ({ type: "text", text })) });
  const response = await fetch(`${server.httpUrl}/v1/moderate`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const verified = await verifyModerationResponse({ status: response.status, headers: Object.fromEntries(response.headers.entries()), body: bytes, requestBody: body, jwks });
  const json = JSON.parse(new TextDecoder().decode(bytes)) as {
    flagged: boolean; policy?: { id: string; version: number };
    results: { categories: Categories; explanations: { category: string; spans: { start: number; end: number; text: string }[] }[] }[];
    combined?: { categories: Categories };
  };
  return { status: response.status, json, verified, bytes, headers: Object.fromEntries(response.headers.entries()), body };
}

const scores = (categories: Categories) => Object.fromEntries(Object.entries(categories).map(([id, c]) => [id, c.score]));
const flags = (categories: Categories) => Object.values(categories).map((c) => c.flagged);

describe("policies over POST /v1/moderate", () => {
  it("thresholds change flags, not scores; the answer names the policy and its signature covers it", async () => {
    const { accountId, key } = await server.createAccount("pro");
    const before = await moderateJson(key);
    expect(before.status).toBe(200);
    expect(before.json.policy).toBeUndefined();

    const everything = await server.ctx.policies.update({ accountId }, { thresholds: ALL(0) }, "test");
    const flaggedAll = await moderateJson(key);
    expect(flaggedAll.verified).toMatchObject({ valid: true });
    expect(flaggedAll.json.policy).toEqual({ id: everything.id, version: 1 });
    for (const [i, result] of flaggedAll.json.results.entries()) {
      expect(scores(result.categories)).toEqual(scores(before.json.results[i]!.categories));
      expect(flags(result.categories).every(Boolean)).toBe(true);
    }
    expect(scores(flaggedAll.json.combined!.categories)).toEqual(scores(before.json.combined!.categories));

    await server.ctx.policies.update({ accountId }, { thresholds: ALL("off") }, "test");
    const off = await moderateJson(key);
    expect(off.json.policy).toEqual({ id: everything.id, version: 2 });
    expect(off.json.flagged).toBe(false);
    expect(scores(off.json.results[0]!.categories)).toEqual(scores(before.json.results[0]!.categories));

    // The signature covers the policy: the same body naming another version does not verify.
    const tampered = new TextEncoder().encode(new TextDecoder().decode(off.bytes).replace('"version":2', '"version":3'));
    expect(tampered).not.toEqual(off.bytes);
    expect(await verifyModerationResponse({ status: 200, headers: off.headers, body: tampered, requestBody: off.body, jwks })).toMatchObject({ valid: false });
  });

  it("block-list hits with obfuscated spellings flag custom with spans; allow list; per-key override", async () => {
    const { accountId, key } = await server.createAccount("pro");
    const second = await server.ctx.accounts.createKey(accountId, "kids");
    await server.ctx.policies.update({ accountId }, { blockList: [{ term: "camper", category: "custom" }] }, "test");
    await server.ctx.policies.update({ accountId, keyId: second.id }, { thresholds: ALL("off") }, "test");
    const hit = await moderateJson(key, ["stop being a c4mp3r"]);
    expect(hit.json.flagged).toBe(true);
    expect(hit.json.results[0]!.categories.custom).toEqual({ score: 1, flagged: true });
    expect(hit.json.results[0]!.explanations).toContainEqual({ category: "custom", spans: [{ start: 13, end: 19, text: "c4mp3r", weight: 1 }] });
    // The other key's override has no block list, and everything off.
    const other = await moderateJson(second.key, ["stop being a c4mp3r"]);
    expect(other.json.flagged).toBe(false);
    expect(other.json.results[0]!.categories.custom).toBeUndefined();
  });

  it("allowed terms never count on their own, and the rest of the text still flags", async () => {
    const { accountId, key } = await server.createAccount("pro");
    // Five insults; the model's explanation shows at most three of them.
    const many = "you idiot, you stupid moron, you pathetic loser, you worthless dumb clown, shut up you ugly fool";
    const alone = "you idiot";
    const before = await moderateJson(key, [many, alone]);
    expect(before.json.results.map((r) => r.categories.harassment!.flagged)).toEqual([true, true]);
    const shown = before.json.results[0]!.explanations.find((e) => e.category === "harassment")!.spans.map((s) => s.text.toLowerCase());
    await server.ctx.policies.update({ accountId }, { allowList: [...shown, "idiot"] }, "test");
    const after = await moderateJson(key, [many, alone]);
    // Allowing the shown words leaves the other insults: still harassment. The lone allowed word is not.
    expect(after.json.results.map((r) => r.categories.harassment!.flagged)).toEqual([true, false]);
    expect(after.json.results[0]!.categories.harassment!.score).toBe(before.json.results[0]!.categories.harassment!.score);
  });

  it("an allowed term whose removal leaves text in a language the model does not cover: unflagged, and said not evaluated", async () => {
    const { accountId, key } = await server.createAccount("pro");
    const mixed = "you idiot, je vais te tuer demain matin, sale con et je te déteste";
    const before = await moderateJson(key, [mixed]);
    expect(before.json.results[0]!.categories.harassment!.flagged).toBe(true);
    await server.ctx.policies.update({ accountId }, { allowList: ["idiot"] }, "test");
    const after = (await moderateJson(key, [mixed])).json.results[0] as { categories: Categories; not_evaluated?: { reason: string; language: string } };
    expect(after.categories.harassment!.flagged).toBe(false);
    // Not "safe": the answer says the rest (French) was not evaluated.
    expect(after.not_evaluated).toEqual({ reason: "partly_unsupported_language", language: "fr" });
  });
});

describe("a policy threshold against the model's own bar", () => {
  // Negated and counter-speech claims (held back over the bar), a threat phrase a rule flags
  // under it, plain harm and plain chat.
  const SENTENCES = [
    "Immigrants are not vermin.",
    "Saying that gay people are disgusting is hateful and wrong.",
    "I will find you and hurt you",
    "He said he would kill you",
    "you are a worthless idiot",
    "I want to kill myself",
    "have a lovely day",
  ];

  it("at the model's own thresholds flags exactly as no policy does; looser flags no more, stricter no less", async () => {
    const bars = server.ctx.textFlagBars!;
    expect(Object.keys(bars)).toEqual(expect.arrayContaining(["hate", "harassment", "violence"]));
    const { accountId, key } = await server.createAccount("pro");
    const allFlags = async () => (await moderateJson(key, SENTENCES)).json.results.map((r) => Object.fromEntries(Object.entries(r.categories).map(([id, c]) => [id, c.flagged])));
    const asModel = await allFlags();
    await server.ctx.policies.update({ accountId }, { thresholds: bars }, "test");
    expect(await allFlags()).toEqual(asModel);
    // "Immigrants are not vermin." scores hate over 0.9, held back by its frame.
    await server.ctx.policies.update({ accountId }, { thresholds: Object.fromEntries(Object.entries(bars).map(([id, bar]) => [id, Math.min(1, bar + 0.35)])) }, "test");
    const looser = await allFlags();
    await server.ctx.policies.update({ accountId }, { thresholds: Object.fromEntries(Object.entries(bars).map(([id, bar]) => [id, bar / 2])) }, "test");
    const stricter = await allFlags();
    for (const [i, flags] of asModel.entries()) {
      for (const [id, flagged] of Object.entries(flags)) {
        if (looser[i]![id]) expect(flagged, `${SENTENCES[i]} ${id} looser`).toBe(true);
        if (flagged) expect(stricter[i]![id], `${SENTENCES[i]} ${id} stricter`).toBe(true);
      }
    }
    expect(looser[0]!.hate).toBe(false);
  });
});

describe("policies over POST /v1/moderations (OpenAI's dialect)", () => {
  it("maps the policy's flags like the model's; scores unchanged", async () => {
    const { accountId, key } = await server.createAccount("pro");
    const call = async () => {
      const response = await fetch(`${server.httpUrl}/v1/moderations`, {
        method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify({ input: "I will hurt you, you idiot" }),
      });
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { policy?: { id: string; version: number }; results: { flagged: boolean; categories: Record<string, boolean>; category_scores: Record<string, number> }[] };
      return { ...answer.results[0]!, policy: answer.policy };
    };
    const before = await call();
    expect(before.policy).toBeUndefined();
    const saved = await server.ctx.policies.update({ accountId }, { thresholds: ALL("off") }, "test");
    const off = await call();
    // Named as /v1/moderate names it (signed with the answer): which version judged, not only that one did.
    expect(off.policy).toEqual({ id: saved.id, version: saved.version });
    expect(off.flagged).toBe(false);
    expect(Object.values(off.categories).some(Boolean)).toBe(false);
    expect(off.category_scores).toEqual(before.category_scores);
    await server.ctx.policies.update({ accountId }, { thresholds: ALL(0) }, "test");
    const all = await call();
    expect(all.categories.hate).toBe(true);
    expect(all.categories["self-harm"]).toBe(true);
    expect(all.category_scores).toEqual(before.category_scores);
  });

  it("a custom block-list hit, which OpenAI has no category for, flags the result (strings and parts)", async () => {
    const { accountId, key } = await server.createAccount("pro");
    await server.ctx.policies.update({ accountId }, { thresholds: ALL("off"), blockList: [{ term: "camper", category: "custom" }] }, "test");
    const call = async (input: unknown) => {
      const response = await fetch(`${server.httpUrl}/v1/moderations`, {
        method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify({ input }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { results: { flagged: boolean; categories: Record<string, boolean> }[] }).results;
    };
    const strings = await call(["the c4mper is here", "the tent is here"]);
    expect(strings.map((r) => r.flagged)).toEqual([true, false]);
    expect(Object.values(strings[0]!.categories).some(Boolean)).toBe(false);
    const [parts] = await call([{ type: "text", text: "the tent is here" }, { type: "text", text: "and the camper" }]);
    expect(parts!.flagged).toBe(true);
  });
});

describe.each([
  ["connect", () => createConnectTransport({ baseUrl: server.httpUrl, httpVersion: "1.1" })],
  ["grpc-web", () => createGrpcWebTransport({ baseUrl: server.httpUrl, httpVersion: "1.1" })],
  ["grpc", () => createGrpcTransport({ baseUrl: server.grpcUrl })],
] as const)("policies over %s", (_name, makeTransport: () => Transport) => {
  it("thresholds change flags, not scores, and the signature covers the policy", async () => {
    const { accountId, key } = await server.createAccount("pro");
    const client = createClient(ModerationService, makeTransport());
    const request = create(ModerateRequestSchema, { input: TEXTS.map((text) => ({ type: "text", text })) });
    const call = async () => {
      let header = new Headers();
      let trailer = new Headers();
      const message = await client.moderate(request, { headers: { "x-api-key": key }, onHeader: (h) => (header = h), onTrailer: (t) => (trailer = t) });
      return { message, header, trailer };
    };
    const before = (await call()).message;
    const policy = await server.ctx.policies.update({ accountId }, { thresholds: ALL(0) }, "test");
    const result = await call();
    const after: ModerateResponse = result.message;
    expect(after.policy).toMatchObject({ id: policy.id, version: 1 });
    for (const [i, item] of after.results.entries()) {
      for (const [id, entry] of Object.entries(item.categories)) {
        expect(entry.score).toBe(before.results[i]!.categories[id]!.score);
        expect(entry.flagged).toBe(true);
      }
    }
    const method = ModerationService.method.moderate;
    expect(await verifyConnectResult({ method, request, result, jwks })).toMatchObject({ valid: true });
    after.policy!.version = 7;
    expect(await verifyConnectResult({ method, request, result, jwks })).toMatchObject({ valid: false });
  });
});
