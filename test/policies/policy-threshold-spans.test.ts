import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Sentences written for this test (the second from the spans audit); neither flags under the model's own bars.
const MILD = "you are kind of a dummy, honestly";
const WALL = "😀😀 I will punch the wall, zorp";

type Result = { categories: Record<string, { score: number; flagged: boolean }>; explanations: { category: string; spans: { start: number; end: number; text: string }[] }[] };

let server: TestServer;
// One compute worker: the policy is applied on the event loop, the text classified in the worker.
beforeAll(async () => {
  server = await startTestServer({ env: { WORKER_THREADS: "1" } });
});
afterAll(async () => server?.close());

async function moderate(key: string, texts: string[]): Promise<{ results: Result[]; combined?: Result }> {
  const response = await fetch(`${server.httpUrl}/v1/moderate`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify({ input: texts.map((text) => ({ type: "text", text })) }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { results: Result[]; combined?: Result };
}

const spansOf = (result: Result, category: string) => result.explanations.find((e) => e.category === category)?.spans.map((s) => s.text);

describe("a category flagged by a policy threshold", () => {
  it("comes with explanations, like every flagged category, in each item and the combined layer", async () => {
    const { accountId, key } = await server.createAccount("pro");
    const before = await moderate(key, [MILD, WALL]);
    expect(before.results.map((r) => r.categories.harassment!.flagged)).toEqual([false, false]);
    expect(before.results.every((r) => r.explanations.length === 0)).toBe(true);

    await server.ctx.policies.update({ accountId }, { thresholds: { harassment: 0.2, violence: 0.05 } }, "test");
    const after = await moderate(key, [MILD, WALL]);
    const [mild, wall] = after.results;
    expect(mild!.categories.harassment).toEqual({ score: before.results[0]!.categories.harassment!.score, flagged: true });
    expect(spansOf(mild!, "harassment")).toEqual(["dummy"]);
    expect(wall!.categories.violence!.flagged).toBe(true);
    expect(spansOf(wall!, "violence")).toEqual(["punch"]);
    // Every flagged category of every layer has spans.
    for (const result of [...after.results, after.combined!]) {
      for (const [category, entry] of Object.entries(result.categories)) {
        if (entry.flagged) expect(spansOf(result, category)?.length, category).toBeGreaterThan(0);
      }
    }
  });
});
