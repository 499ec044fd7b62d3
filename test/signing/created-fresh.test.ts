import { describe, expect, it } from "vitest";
import { callModerate, type Protocol } from "../support/protocol-clients.js";
import { useServerWithKey } from "../support/test-server.js";

// Each answer's Signature-Input carries the second it was signed in (`created`). The signature
// parameters are cached per second (signing/http-signature.ts signatureParams): a cache that
// outlived its second would stamp every later answer with the first one's time, and a client
// verifying with maxAgeSeconds would refuse them all once the process had run that long.

/** The `created` parameter of an answer's Signature-Input, Unix seconds. */
function createdOf(headers: Record<string, string>): number {
  const match = /;created=(\d+)/.exec(headers["signature-input"] ?? "");
  expect(match, headers["signature-input"]).not.toBeNull();
  return Number(match![1]);
}

/** One signed call; `created` must fall within the seconds the call ran in. */
async function signedAt(protocol: Protocol, endpoints: Parameters<typeof callModerate>[1], key: string): Promise<number> {
  const before = Date.now();
  const outcome = await callModerate(protocol, endpoints, { input: [{ type: "text", text: "hello there" }] }, key);
  const after = Date.now();
  expect(outcome.ok).toBe(true);
  const created = createdOf(outcome.headers);
  expect(created).toBeGreaterThanOrEqual(Math.floor(before / 1000));
  expect(created).toBeLessThanOrEqual(Math.ceil(after / 1000));
  return created;
}

/** Waits until the clock reads a later second than `created`, and at least a second has passed. */
async function nextSecond(created: number): Promise<void> {
  const start = Date.now();
  while (Math.floor(Date.now() / 1000) <= created || Date.now() - start < 1000) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Signed on the event loop (0) and ahead in a compute worker (1): each keeps its own cache.
describe.each(["0", "1"])("WORKER_THREADS=%s", (workers) => {
  const started = useServerWithKey({ env: { WORKER_THREADS: workers } });

  it.each<Protocol>(["json", "connect"])("stamps %s answers a second apart with the second each was signed in", async (protocol) => {
    const { server, key } = started;
    const first = await signedAt(protocol, server, key);
    await nextSecond(first);
    const second = await signedAt(protocol, server, key);
    expect(second).toBeGreaterThan(first);
  });
});
