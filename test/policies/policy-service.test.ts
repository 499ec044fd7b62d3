import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { PolicyService } from "../../gen/moderation/v1/policy_pb.js";
import { CATEGORY_IDS } from "../../src/classifiers/categories.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ store: "postgres" });
});
afterAll(async () => server?.close());

const client = () => createClient(PolicyService, createGrpcTransport({ baseUrl: server.grpcUrl }));

async function codeOf(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
  } catch (error) {
    return ConnectError.from(error).metadata.get("x-error-code") ?? undefined;
  }
  return "ok";
}

describe("PolicyService (Postgres store)", () => {
  it("TestPolicy is metered like Moderate (it scores its items with the model); GetPolicy and refusals are not", async () => {
    const { key } = await server.createAccount("pro");
    const headers = { "x-api-key": key };
    const input = [{ type: "text", text: "hello" }, { type: "text", text: "you stupid c4mper" }];
    const answer = (await client().testPolicy({ input, rules: { blockList: [{ term: "camper" }] } }, { headers })).answer!;
    expect(answer.flagged).toBe(true);
    await client().getPolicy({}, { headers });
    expect(await codeOf(client().testPolicy({ input: [{ type: "image", base64: "x" }] }, { headers }))).toBe("invalid_request");
    await server.ctx.meter.flush();
    const usage = (await (await fetch(`${server.httpUrl}/v1/usage`, { headers })).json()) as { totals: Record<string, number> };
    expect(usage.totals).toEqual({ requests: 1, text_items: 2, image_items: 0, deep_analyses: 0, flagged: 1 });
  });

  it("updates, reads back with its history, and the store Moderate reads sees it", async () => {
    const { accountId, key, keyId } = await server.createAccount("pro");
    const headers = { "x-api-key": key };
    expect((await client().getPolicy({}, { headers })).policy).toBeUndefined();
    const rules = { thresholds: { hate: 0.25 }, off: ["violence"], blockList: [{ term: "camper", category: "" }], allowList: ["gg"] };
    const updated = (await client().updatePolicy({ rules }, { headers })).policy!;
    expect(updated).toMatchObject({ version: 1, keyId: "", rules: { thresholds: { hate: 0.25 }, off: ["violence"], blockList: [{ term: "camper", category: "custom" }], allowList: ["gg"] } });
    const read = await client().getPolicy({}, { headers });
    expect(read.policy).toEqual(updated);
    expect(read.changes).toMatchObject([{ policyId: updated.id, version: 1, previousVersion: 0, changedBy: `key:${keyId}` }]);
    expect((await server.ctx.policies.forCaller(accountId, keyId))?.policy.version).toBe(1);
    // The same as JSON over Connect.
    const viaJson = await fetch(`${server.httpUrl}/moderation.v1.PolicyService/GetPolicy`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: "{}" });
    expect(viaJson.status).toBe(200);
    expect(((await viaJson.json()) as { policy: { version: number } }).policy.version).toBe(1);
  });

  it("a key's override, and no key of another account", async () => {
    const mine = await server.createAccount("pro");
    const theirs = await server.createAccount("pro");
    const headers = { "x-api-key": mine.key };
    const override = (await client().updatePolicy({ keyId: mine.keyId, rules: { off: [...CATEGORY_IDS] } }, { headers })).policy!;
    expect(override.keyId).toBe(mine.keyId);
    expect((await client().getPolicy({ keyId: mine.keyId }, { headers })).policy?.version).toBe(1);
    expect((await client().getPolicy({}, { headers })).policy).toBeUndefined();
    expect(await codeOf(client().updatePolicy({ keyId: theirs.keyId, rules: {} }, { headers }))).toBe("not_found");
  });

  it("no override is written for a revoked key (it applies to no call); its history can still be read and removed", async () => {
    const mine = await server.createAccount("pro");
    const other = await server.ctx.accounts.createKey(mine.accountId, "other");
    await client().updatePolicy({ keyId: other.id, rules: { off: ["hate"] } }, { headers: { "x-api-key": mine.key } });
    await server.ctx.accounts.revokeKey(other.id);
    const headers = { "x-api-key": mine.key };
    expect(await codeOf(client().updatePolicy({ keyId: other.id, rules: {} }, { headers }))).toBe("not_found");
    expect((await client().getPolicy({ keyId: other.id }, { headers })).policy?.version).toBe(1);
    expect((await client().deletePolicy({ keyId: other.id }, { headers })).removed).toBe(true);
  });

  it("DeletePolicy removes a key's override: its calls follow the account's policy again; not another account's", async () => {
    const mine = await server.createAccount("pro");
    const theirs = await server.createAccount("pro");
    const headers = { "x-api-key": mine.key };
    const account = (await client().updatePolicy({ rules: { thresholds: { hate: 0.25 } } }, { headers })).policy!;
    const override = (await client().updatePolicy({ keyId: mine.keyId, rules: {} }, { headers })).policy!;
    expect((await server.ctx.policies.forCaller(mine.accountId, mine.keyId))?.policy.id).toBe(override.id);
    expect(await codeOf(client().deletePolicy({ keyId: theirs.keyId }, { headers }))).toBe("not_found");
    const removed = await client().deletePolicy({ keyId: mine.keyId }, { headers });
    expect([removed.removed, removed.policyId, removed.version]).toEqual([true, override.id, 2]);
    expect((await client().getPolicy({ keyId: mine.keyId }, { headers })).policy).toBeUndefined();
    expect((await server.ctx.policies.forCaller(mine.accountId, mine.keyId))?.policy).toMatchObject({ id: account.id, version: account.version });
    const changes = (await client().getPolicy({}, { headers })).changes;
    expect(changes.find((c) => c.keyId === mine.keyId && c.version === 2)?.removed).toBe(true);
    expect((await client().deletePolicy({ keyId: mine.keyId }, { headers })).removed).toBe(false);
  });

  it("TestPolicy shows flags under a draft without saving it; scores are the model's", async () => {
    const { key } = await server.createAccount("pro");
    const headers = { "x-api-key": key };
    const input = [{ type: "text", text: "you n00b c4mper" }];
    const plain = (await client().testPolicy({ input }, { headers })).answer!;
    const drafted = (await client().testPolicy({ input, rules: { thresholds: Object.fromEntries(CATEGORY_IDS.map((id) => [id, 0])), blockList: [{ term: "camper", category: "hate" }] } }, { headers })).answer!;
    expect(drafted.policy).toMatchObject({ id: "draft", version: 0 });
    for (const [id, entry] of Object.entries(drafted.results[0]!.categories)) {
      expect(entry.flagged).toBe(true);
      expect(entry.score).toBe(plain.results[0]!.categories[id]!.score);
    }
    expect(drafted.results[0]!.explanations.find((e) => e.category === "hate")?.spans[0]).toMatchObject({ start: 9, end: 15, text: "c4mper" });
    expect((await client().getPolicy({}, { headers })).policy).toBeUndefined();
  });

  it("refuses invalid drafts with stable codes, and calls without a key", async () => {
    const { key } = await server.createAccount("pro");
    const headers = { "x-api-key": key };
    expect(await codeOf(client().updatePolicy({ rules: { thresholds: { gore: 0.5 } } }, { headers }))).toBe("policy_unknown_category");
    expect(await codeOf(client().updatePolicy({ rules: { thresholds: { hate: 1.5 } } }, { headers }))).toBe("policy_invalid_threshold");
    expect(await codeOf(client().updatePolicy({ rules: { allowList: Array.from({ length: 1001 }, (_, i) => `w${i}`) } }, { headers }))).toBe("policy_list_too_large");
    expect(await codeOf(client().updatePolicy({ rules: { thresholds: { hate: 0.5 }, off: ["hate"] } }, { headers }))).toBe("invalid_policy");
    expect(await codeOf(client().updatePolicy({}, { headers }))).toBe("invalid_policy");
    // An inherited property name is an unknown category, not "a threshold and also off".
    // "__proto__" was assigned to a plain object, stored nothing and was accepted as an empty policy.
    for (const name of ["constructor", "toString", "__proto__"]) expect(await codeOf(client().updatePolicy({ rules: { off: [name] } }, { headers }))).toBe("policy_unknown_category");
    const twice = await client().updatePolicy({ rules: { off: ["hate", "hate"] } }, { headers }).catch((e: unknown) => ConnectError.from(e));
    expect((twice as ConnectError).rawMessage).toBe("hate is listed more than once in off.");
    expect(await codeOf(client().testPolicy({ rules: { blockList: [{ term: "x".repeat(101) }] }, input: [{ type: "text", text: "hi" }] }, { headers }))).toBe("policy_term_invalid");
    // Connect's JSON with a misspelt field, or rules left out, is refused: it saved an empty policy.
    await client().updatePolicy({ rules: { allowList: ["keep"] } }, { headers });
    for (const body of ['{"rules":{"blocklist":[{"term":"camper"}]}}', '{"rule":{"allowList":["x"]}}', "{}"]) {
      const response = await fetch(`${server.httpUrl}/moderation.v1.PolicyService/UpdatePolicy`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
      expect(response.status, body).toBe(400);
      expect(response.headers.get("x-error-code"), body).toMatch(/^(invalid_request|invalid_policy)$/);
    }
    expect((await client().getPolicy({}, { headers })).policy?.rules?.allowList).toEqual(["keep"]);
    const error = await client().getPolicy({}).catch((e: unknown) => ConnectError.from(e));
    expect((error as ConnectError).code).toBe(Code.Unauthenticated);
    const connect = createClient(PolicyService, createConnectTransport({ baseUrl: server.httpUrl, httpVersion: "1.1" }));
    expect(await codeOf(connect.getPolicy({}, { headers: { "x-api-key": "mk_nope" } }))).toBe("invalid_api_key");
  });
});
