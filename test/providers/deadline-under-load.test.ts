import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import v8 from "node:v8";
import vm from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error.js";
import type { VisionImage } from "../../src/providers/deep-analyzer.js";
import { startDeadline } from "../../src/providers/deadline.js";
import { createGuardedAnalyzer } from "../../src/providers/guarded-analyzer.js";
import type { GuardOptions } from "../../src/providers/provider-guard.js";
import { createOpenAiCompatibleAnalyzer } from "../../src/providers/openai-compatible.js";
import { startFakeOpenAiServer, verdict, type FakeOpenAiServer } from "./fake-openai-server.js";
import { waitUntil } from "../support/poll.js";

// The Node 20 bug (a timeout signal inside AbortSignal.any collected before it fires) shows only
// when the collector runs while a call waits, so this file runs full collections throughout.
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** Scheduling delay allowed on a busy 2-core CI machine; the bug made calls hang for good. */
const SLACK_MS = 8_000;

const image: VisionImage = { mediaType: "image/png", data: Buffer.from("not decoded by the fake") };

let vision: FakeOpenAiServer;
let other: Server;
let otherUrl: string;

/** Other traffic on the same process: a busy HTTP server and client, garbage, and collections. */
function startBackgroundLoad(): () => Promise<number> {
  let running = true;
  let served = 0;
  const clients = Array.from({ length: 8 }, async () => {
    while (running) {
      const res = await fetch(otherUrl, { method: "POST", body: "x".repeat(4096) });
      await res.arrayBuffer();
      served++;
    }
  });
  const collector = setInterval(() => {
    const garbage = Array.from({ length: 2000 }, (_, i) => ({ i, s: String(i).repeat(20) }));
    if (garbage.length > 0) gc();
  }, 50);
  return async () => {
    running = false;
    clearInterval(collector);
    await Promise.all(clients);
    return served;
  };
}

beforeAll(async () => {
  vision = await startFakeOpenAiServer();
  vision.setDefault(vision.silence());
  other = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end(JSON.stringify({ ok: true })));
  });
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await vision?.close();
  other?.closeAllConnections();
  await new Promise<void>((resolve) => other?.close(() => resolve()));
});

function analyzer(guard: Partial<GuardOptions>) {
  return createGuardedAnalyzer(createOpenAiCompatibleAnalyzer({ baseUrl: vision.baseUrl, model: "fake-vision" }), {
    backoffBaseMs: 5,
    backoffMaxMs: 20,
    maxConcurrency: 4,
    maxQueue: 64,
    // The breaker would cut the test short by failing fast; the limits are what is under test.
    failureThreshold: 1_000,
    ...guard,
  });
}

/** Runs `count` calls at once; each one's outcome and how long it took. */
async function concurrentCalls(guarded: ReturnType<typeof analyzer>, count: number) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const started = performance.now();
      const error = await guarded.analyze({ images: [image] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      return { error, ms: performance.now() - started };
    }),
  );
}

/** Polls until `check` holds; the cap is generous, as the suite runs in parallel on 2 cores. */
describe("provider time limits under load, with a provider that accepts and never answers", () => {
  it("the total limit ends every call, queued ones included, and frees every slot", async () => {
    const guarded = analyzer({ attemptTimeoutMs: 300, totalTimeoutMs: 800, maxRetries: 5 });
    const stopLoad = startBackgroundLoad();
    const results = await concurrentCalls(guarded, 24);
    // The other traffic kept flowing meanwhile.
    expect(await stopLoad()).toBeGreaterThan(0);
    for (const { error, ms } of results) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).code).toBe("deep_analysis_unavailable");
      expect((error as ApiError).message).toContain("did not answer in time");
      // Near the limit: not before it, and not long after it even on a heavily loaded machine
      // (without the fix, calls hang until the test times out).
      expect(ms).toBeGreaterThanOrEqual(790);
      expect(ms).toBeLessThan(800 + SLACK_MS);
    }
    expect(guarded.load()).toEqual({ active: 0, waiting: 0 });
    // The abandoned HTTP requests are closed too, not left open on the provider.
    await waitUntil(() => vision.inFlight === 0, "no provider call in flight", 15_000);
    // With the slots back, an answering provider is used at once.
    vision.setDefault(verdict({ violence: 0.9 }));
    const started = performance.now();
    const result = await guarded.analyze({ images: [image] }).finally(() => vision.setDefault(vision.silence()));
    expect(result.categories.violence.flagged).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("the attempt limit ends each attempt, so retries happen within the total", async () => {
    const guarded = analyzer({ attemptTimeoutMs: 250, totalTimeoutMs: 20_000, maxRetries: 1 });
    const stopLoad = startBackgroundLoad();
    const results = await concurrentCalls(guarded, 4).finally(stopLoad);
    for (const { error, ms } of results) {
      expect((error as ApiError).code).toBe("deep_analysis_unavailable");
      // Two attempts of 250 ms each (one alone ends at 250 ms) plus a short backoff; far below the 20 s total.
      expect(ms).toBeGreaterThanOrEqual(490);
      expect(ms).toBeLessThan(500 + SLACK_MS);
    }
    expect(guarded.load()).toEqual({ active: 0, waiting: 0 });
  });
});

describe("startDeadline", () => {
  it("fires with a TimeoutError, passes a parent's reason on, and unlinks when cleared", async () => {
    const limit = startDeadline(30);
    await new Promise((resolve) => limit.signal.addEventListener("abort", resolve));
    expect((limit.signal.reason as DOMException).name).toBe("TimeoutError");

    const parent = new AbortController();
    const child = startDeadline(60_000, parent.signal);
    parent.abort(new Error("caller left"));
    expect((child.signal.reason as Error).message).toBe("caller left");

    const early = new AbortController();
    const linked = startDeadline(60_000, early.signal);
    linked.clear();
    early.abort();
    expect(linked.signal.aborted).toBe(false);
    expect(startDeadline(10, AbortSignal.abort("gone")).signal.reason).toBe("gone");
  });

  it("a cleared limit never fires", async () => {
    const limit = startDeadline(20);
    limit.clear();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(limit.signal.aborted).toBe(false);
  });
});
