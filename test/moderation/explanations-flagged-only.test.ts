import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/test-server.js";

// docs/api.md: `explanations` lists spans "for each flagged category". A policy that unflags a
// category (threshold "off", or a threshold above its score) keeps the model's spans for it in
// the verdict (policies/apply-policy.ts); the answer must not show them
// (moderation/assemble-answer.ts toCategories).

type Answer = {
  flagged: boolean;
  results: { categories: Record<string, { score: number; flagged: boolean }>; explanations: { category: string }[] }[];
  combined?: { categories: Record<string, { score: number; flagged: boolean }>; explanations: { category: string }[] };
};
const VIOLENT = "I am going to kill you tonight";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

async function moderate(key: string, texts: string[]): Promise<Answer> {
  const response = await fetch(`${server.httpUrl}/v1/moderate`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key },
    body: JSON.stringify({ input: texts.map((text) => ({ type: "text", text })) }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Answer;
}

const explained = (entry: { explanations: { category: string }[] }) => entry.explanations.map((e) => e.category);

describe("explanations under a policy that unflags a category", () => {
  it("lists violence's spans without a policy (the text does hold evidence for it)", async () => {
    const { key } = await server.createAccount("pro");
    const answer = await moderate(key, [VIOLENT]);
    expect(answer.results[0]!.categories.violence!.flagged).toBe(true);
    expect(explained(answer.results[0]!)).toContain("violence");
  });

  it.each([
    ["violence off", () => ({ violence: "off" as const })],
    ["a violence threshold above the score", () => ({ violence: 1 })],
  ])("lists none for violence with %s, on the items and the combined layer", async (_name, thresholds) => {
    const { accountId, key } = await server.createAccount("pro");
    await server.ctx.policies.update({ accountId }, { thresholds: thresholds() }, "test");
    const answer = await moderate(key, [VIOLENT, VIOLENT]);
    for (const entry of [...answer.results, answer.combined!]) {
      const violence = entry.categories.violence!;
      expect(violence.score).toBeLessThan(1);
      expect(violence.flagged).toBe(false);
      expect(explained(entry)).not.toContain("violence");
      // Every category explained is one the answer flags.
      for (const category of explained(entry)) expect(entry.categories[category]?.flagged, category).toBe(true);
    }
  });
});
