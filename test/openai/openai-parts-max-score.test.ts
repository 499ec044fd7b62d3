import { expect, it } from "vitest";
import { OPENAI_CATEGORIES } from "../../src/classifiers/openai-categories.js";
import { useServerWithKey } from "../support/test-server.js";

// An array of parts on /v1/moderations is one input: its items and their combined layer fold
// into one result whose category_scores are, per category, the highest score of any part
// (http/openai/openai-response.ts foldResult), so a score never reads low while the part that
// flagged it scored high.

const started = useServerWithKey();
// A threat first, a harmless line last: the last part (the combined layer) scores violence lower.
const TEXTS = ["I am going to kill you tonight", "have a lovely day, see you at the picnic with the kids"];

type Categories = Record<string, { score: number; flagged: boolean }>;

async function post(path: string, body: unknown): Promise<any> {
  const response = await fetch(`${started.server.httpUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${started.key}` },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return response.json();
}

it("reports each category's highest score over the parts, not the last part's", async () => {
  const parts = TEXTS.map((text) => ({ type: "text", text }));
  // The same items on /v1/moderate (same input, same scores): every part's own scores.
  const native = await post("/v1/moderate", { input: parts });
  const judged: Categories[] = [...native.results.map((r: { categories: Categories }) => r.categories), native.combined.categories];
  const last = judged[judged.length - 1]!;
  const highest = (ours: string) => Math.max(0, ...judged.map((categories) => categories[ours]?.score ?? 0));
  // The case this test is for: the threat's violence score is above the last part's.
  expect(highest("violence")).toBeGreaterThan(last.violence!.score);

  const openai = await post("/v1/moderations", { input: parts });
  expect(openai.results).toHaveLength(1);
  const result = openai.results[0];
  for (const [name, ours] of OPENAI_CATEGORIES) {
    expect(result.category_scores[name], name).toBe(ours === undefined ? 0 : highest(ours));
  }
  expect(result.categories.violence).toBe(true);
});
