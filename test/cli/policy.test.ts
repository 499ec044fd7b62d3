import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { json, modctl } from "./run-modctl.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

async function moderate(key: string, text: string) {
  const response = await fetch(`${server.httpUrl}/v1/moderate`, {
    method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: JSON.stringify({ input: [{ type: "text", text }] }),
  });
  return (await response.json()) as { flagged: boolean; policy?: { version: number }; results: { categories: Record<string, { flagged: boolean }> }[] };
}

describe("modctl policy", () => {
  it("set applies on the server's next request; get shows it and who changed it; test tries a draft", async () => {
    const { accountId, key } = await server.createAccount("pro");
    const policy = JSON.stringify({ block_list: [{ term: "camper", category: "harassment" }], allow_list: ["gg"] });
    const set = json(await modctl(["policy", "set", "--account", accountId, "--file", "-"], server.env, policy));
    expect(set).toMatchObject({ version: 1, blockList: [{ term: "camper", category: "harassment" }] });
    const answer = await moderate(key, "what a c.a.m.p.e.r");
    expect(answer.policy?.version).toBe(1);
    expect(answer.results[0]!.categories.harassment!.flagged).toBe(true);

    const got = json(await modctl(["policy", "get", "--account", accountId], server.env));
    expect(got.policy).toEqual(set);
    expect(got.changes).toMatchObject([{ version: 1, previousVersion: 0, changedBy: "modctl" }]);

    const tried = json(await modctl(["policy", "test", "--account", accountId, "--text", "campers are fine, camper"], server.env));
    expect(tried.policy).toEqual({ id: set.id, version: 1 });
    expect(tried.results[0].explanations).toContainEqual({ category: "harassment", spans: [expect.objectContaining({ start: 18, end: 24, text: "camper" })] });
    const draft = json(await modctl(["policy", "test", "--account", accountId, "--file", "-", "--text", "camper"], server.env, "{}"));
    expect(draft.policy).toEqual({ id: "draft", version: 0 });
    expect(draft.results[0].explanations).toEqual([]);

    // delete: the server's next answer carries no policy; a second delete has nothing to remove.
    expect(json(await modctl(["policy", "delete", "--account", accountId], server.env))).toEqual({ removed: true, policyId: set.id, version: 2 });
    const after = await moderate(key, "what a c.a.m.p.e.r");
    expect(after.policy).toBeUndefined();
    expect(json(await modctl(["policy", "get", "--account", accountId], server.env))).toMatchObject({ policy: null, changes: [{ version: 2, removed: true }, { version: 1 }] });
    expect(json(await modctl(["policy", "delete", "--account", accountId], server.env))).toEqual({ removed: false });
  });

  it("refuses an invalid policy with its code and exit 1, and an unknown account", async () => {
    const { accountId } = await server.createAccount("pro");
    const bad = await modctl(["policy", "set", "--account", accountId, "--file", "-"], server.env, '{"thresholds":{"hate":7}}');
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stderr).error.code).toBe("policy_invalid_threshold");
    const unknown = await modctl(["policy", "get", "--account", "acct_nope"], server.env);
    expect(JSON.parse(unknown.stderr).error.code).toBe("not_found");
    expect((await modctl(["policy", "set", "--account", accountId], server.env)).code).toBe(2);
  });
});
