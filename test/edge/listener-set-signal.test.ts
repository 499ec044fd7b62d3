import { createLinkedAbortController } from "@connectrpc/connect/protocol";
import { describe, expect, it } from "vitest";
import { createListenerSetSignal } from "../../src/edge/listener-set-signal.js";

describe("the RPC shutdown signal (listeners in a Set)", () => {
  it("aborts every call linked to it, with its reason, as a real AbortSignal does through Connect's linking", () => {
    const shutdown = createListenerSetSignal();
    const calls = Array.from({ length: 3 }, () => createLinkedAbortController(shutdown.signal));
    const reason = new Error("shutting down");
    shutdown.abort(reason);
    expect(shutdown.signal.aborted).toBe(true);
    expect(calls.map((c) => [c.signal.aborted, c.signal.reason])).toEqual(Array.from({ length: 3 }, () => [true, reason]));
    // A call linked after the abort is aborted at once.
    expect(createLinkedAbortController(shutdown.signal).signal.aborted).toBe(true);
  });

  it("lets a finished call go: its listener is removed and the shutdown no longer reaches it", () => {
    const shutdown = createListenerSetSignal();
    const finished = createLinkedAbortController(shutdown.signal);
    finished.abort(); // Connect aborts a call's own controller when the call ends
    const seen: string[] = [];
    shutdown.signal.addEventListener("abort", () => seen.push("still listening"));
    shutdown.abort();
    expect(seen).toEqual(["still listening"]);
    expect(finished.signal.reason).toBeInstanceOf(Error);
    expect((finished.signal.reason as Error).message).not.toMatch(/shutting down/);
  });

  // Its point is cost (constant per call, where a real AbortSignal walks its listeners): measured
  // outside the tests (CHANGELOG 2026-12-17: 20,000 open streams). Here, that many still all abort.
  it("aborts every one of tens of thousands of linked calls, after half of them ended", () => {
    const shutdown = createListenerSetSignal();
    const calls = Array.from({ length: 50_000 }, () => createLinkedAbortController(shutdown.signal));
    for (const call of calls.slice(0, 25_000)) call.abort();
    shutdown.abort();
    expect(calls.every((c) => c.signal.aborted)).toBe(true);
  });
});
