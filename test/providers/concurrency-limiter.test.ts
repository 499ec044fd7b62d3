import { describe, expect, it } from "vitest";
import { createConcurrencyLimiter, LimiterFullError } from "../../src/providers/concurrency-limiter.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("concurrency limiter", () => {
  it("runs at most max tasks at once and starts waiters in order", async () => {
    const limiter = createConcurrencyLimiter({ max: 2, maxQueue: 10 });
    const gates = Array.from({ length: 4 }, deferred);
    const started: number[] = [];
    let running = 0;
    let peak = 0;
    const all = gates.map((gate, i) =>
      limiter.run(async () => {
        started.push(i);
        running++;
        peak = Math.max(peak, running);
        await gate.promise;
        running--;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(limiter.waiting).toBe(2);
    gates[1]!.resolve();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    gates.forEach((g) => g.resolve());
    expect(await Promise.all(all)).toEqual([0, 1, 2, 3]);
    expect(peak).toBe(2);
    expect(limiter.active).toBe(0);
  });

  it("turns callers away when the queue is full", async () => {
    const limiter = createConcurrencyLimiter({ max: 1, maxQueue: 1 });
    const gate = deferred();
    const first = limiter.run(() => gate.promise);
    const second = limiter.run(async () => "second");
    await expect(limiter.run(async () => "third")).rejects.toBeInstanceOf(LimiterFullError);
    gate.resolve();
    await first;
    expect(await second).toBe("second");
  });

  it("a waiter that is aborted leaves the queue and never runs", async () => {
    const limiter = createConcurrencyLimiter({ max: 1, maxQueue: 5 });
    const gate = deferred();
    const first = limiter.run(() => gate.promise);
    const controller = new AbortController();
    let ran = false;
    const waiting = limiter.run(async () => void (ran = true), controller.signal);
    controller.abort(new Error("gone"));
    await expect(waiting).rejects.toThrow("gone");
    expect(limiter.waiting).toBe(0);
    gate.resolve();
    await first;
    expect(ran).toBe(false);
    expect(limiter.active).toBe(0);
  });

  it("frees the slot when a task throws", async () => {
    const limiter = createConcurrencyLimiter({ max: 1, maxQueue: 0 });
    await expect(limiter.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await limiter.run(async () => 7)).toBe(7);
  });
});

// Found by an audit of isolation between accounts: one account's burst against a slow provider
// made every other account wait behind it, then be refused for a full queue.
describe("concurrency limiter shared by accounts", () => {
  it("starts waiters account by account, and a full queue refuses the newest task of the account holding most", async () => {
    const limiter = createConcurrencyLimiter({ max: 1, maxQueue: 4 });
    const gate = deferred();
    const started: string[] = [];
    const task = (name: string, lane: string) => limiter.run(async () => {
      started.push(name);
      await gate.promise;
      return name;
    }, undefined, lane);
    const running = task("a0", "a");
    const waiting = ["a1", "a2", "a3", "a4"].map((name) => task(name, "a"));
    // Full with a's tasks: a's next is refused, b's takes the place of a's newest (a4).
    await expect(task("a5", "a")).rejects.toBeInstanceOf(LimiterFullError);
    const b = task("b1", "b");
    await expect(waiting[3]).rejects.toBeInstanceOf(LimiterFullError);
    expect(limiter.waiting).toBe(4);
    gate.resolve();
    expect(await Promise.all([running, ...waiting.slice(0, 3), b])).toEqual(["a0", "a1", "a2", "a3", "b1"]);
    // b went next once the slot was free, not after a's other waiters.
    expect(started).toEqual(["a0", "b1", "a1", "a2", "a3"]);
  });
});
