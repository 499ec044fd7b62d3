import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import { createGuardedTextProvider } from "../../src/providers/text/guarded-text-provider.js";
import type { TextProvider } from "../../src/providers/text/text-provider.js";
import type { Verdict } from "../../src/classifiers/classifier.js";

/** A healthy provider that takes `ms` per answer and honours cancellation; an answer or a failure. */
function slowProvider(ms: number, fail = false): TextProvider & { started: number } {
  const provider = {
    kind: "llama-guard", id: "slow", judges: ["violence"], started: 0,
    async classify(_text: string, signal?: AbortSignal): Promise<Verdict> {
      provider.started++;
      await sleep(ms, undefined, { signal });
      if (fail) throw new Error("the provider broke");
      return { categories: {}, flagged: false } as unknown as Verdict;
    },
  };
  return provider as TextProvider & { started: number };
}

describe("the provider guard's circuit and the call's own budget", () => {
  it("a try cut short by the total limit after queueing does not count against the provider", async () => {
    // One slot, 300 ms per answer, 500 ms per call in all: of three calls at once the second
    // starts at 300 ms and is cut at 500 by its total limit; the third runs out of time queued
    // (or gets the slot just as its limit fires).
    const inner = slowProvider(300);
    const guarded = createGuardedTextProvider(inner, { maxConcurrency: 1, attemptTimeoutMs: 5_000, totalTimeoutMs: 500, maxRetries: 0, failureThreshold: 1, cooldownMs: 60_000 });
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => guarded.classify("hello")));
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "rejected"]);
    expect(inner.started).toBeGreaterThanOrEqual(2);
    for (const o of outcomes.slice(1)) expect(((o as PromiseRejectedResult).reason as ApiError).message).toContain("did not answer in time");
    // With a threshold of one failure, one counted try would have opened the circuit for 60 s.
    expect(guarded.circuitState()).toBe("closed");
    await expect(guarded.classify("hello")).resolves.toBeDefined();
  });

  it("a try cut by its own limit, or failing, still counts", async () => {
    const hanging = createGuardedTextProvider(slowProvider(10_000), { attemptTimeoutMs: 100, totalTimeoutMs: 5_000, maxRetries: 0, failureThreshold: 1, cooldownMs: 60_000 });
    await expect(hanging.classify("hello")).rejects.toBeInstanceOf(ApiError);
    expect(hanging.circuitState()).toBe("open");
    const broken = createGuardedTextProvider(slowProvider(10, true), { maxRetries: 0, failureThreshold: 1, cooldownMs: 60_000 });
    await expect(broken.classify("hello")).rejects.toBeInstanceOf(ApiError);
    expect(broken.circuitState()).toBe("open");
  });
});
