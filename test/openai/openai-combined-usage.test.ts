import { describe, expect, it } from "vitest";
import { useServerWithKey } from "../support/test-server.js";

/**
 * An array of strings is separate inputs: no combined layer is judged, so usage's `flagged`
 * matches the results. Found by an audit: the layer was computed and metered as flagged where
 * only it flagged, while every result showed unflagged.
 */
// METERING_FLUSH_MS: usage is readable almost at once.
const fixture = useServerWithKey({ env: { METERING_FLUSH_MS: "50" } });

// Neither string flags alone; joined they make the threat.
const SPLIT = ["Hello everyone, how are you today? I will find you", "and hurt you. See you tomorrow."];

async function post(path: string, key: string, body: unknown) {
  const response = await fetch(`${fixture.server.httpUrl}${path}`, {
    method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as any;
}

async function usage(key: string): Promise<{ requests: number; flagged: number }> {
  const response = await fetch(`${fixture.server.httpUrl}/v1/usage?granularity=day`, { headers: { authorization: `Bearer ${key}` } });
  return ((await response.json()) as any).totals;
}

/** The account's usage once `requests` calls are metered. */
async function meteredAfter(key: string, requests: number) {
  for (let i = 0; i < 200; i++) {
    const totals = await usage(key);
    if (totals.requests >= requests) return totals;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`usage never reached ${requests} requests`);
}

describe("POST /v1/moderations metering of separate inputs", () => {
  it("does not count an array of strings as flagged where only their joined text would be", async () => {
    const { key } = await fixture.server.createAccount("enterprise", 1_000_000);
    // On /v1/moderate the same texts are flagged by the combined layer alone.
    const native = await post("/v1/moderate", key, { input: SPLIT.map((text) => ({ type: "text", text })) });
    expect({ flagged: native.flagged, items: native.results.map((r: any) => r.flagged), combined: native.combined.flagged }).toEqual({ flagged: true, items: [false, false], combined: true });
    expect(await meteredAfter(key, 1)).toMatchObject({ requests: 1, flagged: 1 });

    const strings = await post("/v1/moderations", key, { input: SPLIT });
    expect(strings.results.map((r: any) => r.flagged)).toEqual([false, false]);
    expect(await meteredAfter(key, 2)).toMatchObject({ requests: 2, flagged: 1 });

    // An array of parts is one input, judged together as well: flagged, and metered so.
    const parts = await post("/v1/moderations", key, { input: SPLIT.map((text) => ({ type: "text", text })) });
    expect(parts.results.map((r: any) => r.flagged)).toEqual([true]);
    expect(await meteredAfter(key, 3)).toMatchObject({ requests: 3, flagged: 2 });
  });

  it("nor where a policy's block-list term spans two of the strings", async () => {
    const { accountId, key } = await fixture.server.createAccount("enterprise", 1_000_000);
    await fixture.server.ctx.policies.update({ accountId }, { blockList: [{ term: "will find", category: "custom" }] }, "test");
    const strings = await post("/v1/moderations", key, { input: ["I will", "find you"] });
    expect(strings.results.map((r: any) => r.flagged)).toEqual([false, false]);
    expect(await meteredAfter(key, 1)).toMatchObject({ requests: 1, flagged: 0 });
  });
});
