import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callModerate, type Protocol } from "../support/protocol-clients.js";
import { startServerWithKey, type TestServer } from "../support/test-server.js";

/**
 * The combined layer on both paths that judge it: a compute worker answering a text-only call
 * whole (no policy), and moderate() on the event loop (under a policy, here one that matches
 * nothing in these texts), over JSON and the RPC protocols. Found by an audit: an item with
 * nothing to read was joined in, and a benign neighbour diluted a threat split across two items.
 */
let server: TestServer;
let plainKey: string;
let policyKey: string;
beforeAll(async () => {
  const started = await startServerWithKey({ env: { WORKER_THREADS: "1" } });
  server = started.server;
  plainKey = started.key;
  const withPolicy = await server.createAccount("enterprise", 1_000_000);
  await server.ctx.policies.update({ accountId: withPolicy.accountId }, { blockList: [{ term: "zzqxv", category: "custom" }] }, "test");
  policyKey = withPolicy.key;
});
afterAll(() => server?.close());

const texts = (...list: string[]) => ({ input: list.map((text) => ({ type: "text", text })) });
const PATHS: [string, Protocol, () => string][] = [
  ["a worker, JSON", "json", () => plainKey],
  ["a worker, gRPC", "grpc", () => plainKey],
  ["the event loop, JSON", "json", () => policyKey],
  ["the event loop, Connect", "connect", () => policyKey],
];

async function combinedOf(protocol: Protocol, key: string, body: ReturnType<typeof texts>) {
  const outcome = await callModerate(protocol, server, body, key);
  if (!outcome.ok) throw new Error(`${protocol}: ${outcome.code} ${outcome.message}`);
  const combined = outcome.body.combined;
  if (!combined) return undefined;
  const flagged = Object.entries(combined.categories as Record<string, { flagged: boolean }>).filter(([, v]) => v.flagged).map(([c]) => c).sort();
  const spans = (combined.explanations as { category: string; spans: { start: number; end: number; text: string }[] }[])
    .find((e) => e.category === "harassment_threatening")?.spans.map((s) => [s.start, s.end, s.text]);
  const unread = combined.not_evaluated ?? combined.notEvaluated;
  return { flagged, spans, unread: unread ? unread.reason : undefined };
}

describe.each(PATHS)("the combined layer on %s", (_name, protocol, key) => {
  it("is absent when only one item has text to read", async () => {
    expect(await combinedOf(protocol, key(), texts("and hurt you", "   "))).toBeUndefined();
    expect(await combinedOf(protocol, key(), texts("!!!", "and hurt you", "\u200b"))).toBeUndefined();
  });

  it("leaves an item with nothing to read out of the joined text its spans point into", async () => {
    const combined = await combinedOf(protocol, key(), texts("I will find you", "   ", "and hurt you"));
    expect(combined?.flagged).toContain("harassment_threatening");
    // "I will find you\n\nand hurt you": the whitespace item is not part of it.
    expect(combined?.spans).toEqual([[7, 11, "find"], [21, 25, "hurt"]]);
  });

  it.each([
    ["after", ["I will find you", "and hurt you", "Hello everyone, how are you today? See you tomorrow."], undefined],
    ["before", ["Hello everyone, how are you today? See you tomorrow.", "I will find you", "and hurt you"], undefined],
    ["in French, after", ["I will find you", "and hurt you", "Bonjour à tous, comment allez-vous aujourd hui ? On se voit demain."], "partly_unsupported_language"],
  ])("catches a threat split across two items with a third %s", async (_where, list, unread) => {
    const combined = await combinedOf(protocol, key(), texts(...list));
    expect(combined?.flagged).toEqual(expect.arrayContaining(["harassment_threatening", "violence"]));
    expect(combined?.spans?.map(([, , word]) => word)).toEqual(["find", "hurt"]);
    expect(combined?.unread).toBe(unread);
  });
});
