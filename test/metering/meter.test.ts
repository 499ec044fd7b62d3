import { describe, expect, it } from "vitest";
import { createMeter } from "../../src/metering/meter.js";
import type { UsageDelta, UsageStore } from "../../src/metering/usage-store.js";

const one = { requests: 1, textItems: 1, imageItems: 0, deepAnalyses: 0, flagged: 0 };

/** A store whose writes finish only when the test says so. */
function createGatedStore() {
  const written: UsageDelta[] = [];
  const gates: Array<{ open: () => void; fail: (e: Error) => void }> = [];
  const store = {
    add: (deltas: readonly UsageDelta[]) => new Promise<void>((resolve, reject) => {
      gates.push({ open: () => { written.push(...deltas.map((d) => structuredClone(d))); resolve(); }, fail: reject });
    }),
    pruneMinutes: async () => 0,
    read: async () => { throw new Error("unused"); },
  } as unknown as UsageStore;
  const writtenRequests = () => written.reduce((n, d) => n + d.counts.requests, 0);
  return { store, gates, writtenRequests };
}

const yieldToEventLoop = () => new Promise((resolve) => setImmediate(resolve));

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => { done = true; });
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
};

describe("meter", () => {
  it("answers at once below the limit, and holds requests once the buffer is full", async () => {
    const { store, gates, writtenRequests } = createGatedStore();
    const meter = createMeter({ store, maxPending: 3, flushMs: 60_000, clock: () => 0 });
    expect(await settled(meter.record("a", one))).toBe(true);
    expect(await settled(meter.record("a", one))).toBe(true);
    const third = meter.record("a", one); // fills the buffer: waits for the write
    expect(await settled(third)).toBe(false);
    // While that write is stuck, the next two are answered (buffered); the one that fills the buffer again waits.
    const more = [meter.record("b", one), meter.record("b", one), meter.record("b", one)];
    expect(await settled(more[0]!)).toBe(true);
    expect(await settled(more[1]!)).toBe(true);
    expect(await settled(more[2]!)).toBe(false);
    // Answered but unwritten: 2 + 2 = 4 < 2 × maxPending, the documented crash bound.
    expect(writtenRequests()).toBe(0);
    gates[0]!.open();
    await third;
    expect(writtenRequests()).toBe(3);
    await yieldToEventLoop();
    gates[1]!.open();
    await more[2];
    expect(writtenRequests()).toBe(6);
    await meter.close();
  });

  it("keeps the counts of a failed write and sends them with the next one", async () => {
    const { store, gates, writtenRequests } = createGatedStore();
    const meter = createMeter({ store, maxPending: 100, flushMs: 60_000, clock: () => 0 });
    await meter.record("a", one);
    await meter.record("a", one);
    const first = meter.flush();
    await yieldToEventLoop();
    gates[0]!.fail(new Error("database down"));
    await first;
    await meter.record("a", one);
    const second = meter.flush();
    await yieldToEventLoop();
    gates[1]!.open();
    await second;
    expect(writtenRequests()).toBe(3);
    await meter.close();
  });
});
