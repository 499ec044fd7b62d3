import { describe, expect, it } from "vitest";
import { anySignal, laneOf, markLane, shareSignal, withLane } from "../../src/threads/caller-lane.js";
import { LaneQueue } from "../../src/threads/lane-queue.js";

type Item = { lane: string; name: string };
const item = (lane: string, name: string): Item => ({ lane, name });
const names = (items: (Item | undefined)[]) => items.map((i) => i?.name);

describe("LaneQueue", () => {
  it("takes one job per lane in turn, each lane first in, first out, a lane that was empty next", () => {
    const q = new LaneQueue<Item>();
    for (const name of ["a1", "a2", "a3"]) q.push(item("a", name));
    q.push(item("b", "b1"));
    expect(q.length).toBe(4);
    expect(q.shift()?.name).toBe("a1");
    q.push(item("c", "c1"));
    q.push(item("b", "b2"));
    expect(q.peek()?.name).toBe("b1");
    // b and c had not been served: both before a, served already; then the served lanes in turn.
    expect(names([q.shift(), q.shift(), q.shift(), q.shift(), q.shift(), q.shift()])).toEqual(["b1", "c1", "a2", "b2", "a3", undefined]);
    expect(q.length).toBe(0);
    expect(q.peek()).toBeUndefined();
  });

  it("puts jobs back ahead of the rest, each at the front of its lane", () => {
    const q = new LaneQueue<Item>();
    q.push(item("a", "a3"));
    q.push(item("b", "b2"));
    q.pushFront([item("b", "b1"), item("c", "c1"), item("a", "a1"), item("a", "a2")]);
    expect(q.length).toBe(6);
    // Their lanes first, in the order given; then the lanes take turns again.
    expect(names(Array.from({ length: 6 }, () => q.shift()))).toEqual(["b1", "c1", "a1", "b2", "a2", "a3"]);
    expect(q.length).toBe(0);
  });

  // A lane emptied between two jobs of one account (its first request's job taken before the
  // second arrived) is not new when it fills again: it went ahead of an account sending its first.
  it("remembers a lane's last turn while it is empty", () => {
    const q = new LaneQueue<Item>();
    q.push(item("a", "a1"));
    expect(q.shift()?.name).toBe("a1");
    q.push(item("a", "a2"));
    q.push(item("b", "b1"));
    expect(names([q.shift(), q.shift()])).toEqual(["b1", "a2"]);
    expect(q.drain()).toEqual([]);
  });

  it("removes a job wherever it waits, once, and forgets an emptied lane", () => {
    const q = new LaneQueue<Item>();
    const gone = item("a", "a1");
    q.push(gone);
    q.push(item("b", "b1"));
    expect(q.remove(gone)).toBe(true);
    expect(q.remove(gone)).toBe(false);
    expect(q.remove(item("z", "z1"))).toBe(false);
    q.push(item("a", "a2"));
    expect(names([q.shift(), q.shift()])).toEqual(["b1", "a2"]);
  });
});

describe("LaneQueue.displaceFor (a full queue)", () => {
  it("gives up the newest job of the longest lane while it holds more than the newcomer's would", () => {
    const q = new LaneQueue<Item>();
    for (const name of ["a1", "a2", "a3"]) q.push(item("a", name));
    q.push(item("b", "b1"));
    expect(q.displaceFor("c")?.name).toBe("a3");
    expect(q.displaceFor("c")?.name).toBe("a2");
    // a holds 1, as c would: c is the one refused. And a, the longest, is never displaced for itself.
    expect(q.displaceFor("c")).toBeUndefined();
    expect(q.displaceFor("a")).toBeUndefined();
    expect(q.length).toBe(2);
    expect(new LaneQueue<Item>().displaceFor("a")).toBeUndefined();
  });
});

describe("caller lanes", () => {
  it("are carried by the call's signal, and a derived signal carries one only when marked", () => {
    const call = new AbortController().signal;
    expect(laneOf(call)).toBe("");
    markLane(call, "acct_1");
    expect(laneOf(call)).toBe("acct_1");
    const derived = AbortSignal.any([call]);
    expect(laneOf(derived)).toBe("");
    markLane(derived, laneOf(call));
    expect(laneOf(derived)).toBe("acct_1");
    expect(laneOf(undefined)).toBe("");
  });

  it("are kept by anySignal, which aborts with its parent or any other", () => {
    const call = new AbortController();
    markLane(call.signal, "acct_1");
    const other = new AbortController();
    const derived = anySignal(call.signal, other.signal);
    expect(laneOf(derived)).toBe("acct_1");
    other.abort();
    expect(derived.aborted).toBe(true);
    const fromCall = anySignal(call.signal, new AbortController().signal);
    call.abort();
    expect(fromCall.aborted).toBe(true);
    // Without a call's signal: the other one itself, in the shared lane.
    const alone = new AbortController().signal;
    expect(anySignal(undefined, alone)).toBe(alone);
    expect(laneOf(anySignal(undefined, alone))).toBe("");
  });

  // Found by a reread: the JSON route hands short calls one shared signal that never aborts, and
  // marking it gave every such call the lane of whichever call marked it last.
  it("are never put on a signal many calls share: each call gets one of its own", () => {
    const sharedByAll = shareSignal(new AbortController().signal);
    const a = withLane(sharedByAll, "acct_a");
    const b = withLane(sharedByAll, "acct_b");
    expect([laneOf(a), laneOf(b), laneOf(sharedByAll)]).toEqual(["acct_a", "acct_b", ""]);
    expect(a.aborted || b.aborted).toBe(false);
    const own = new AbortController().signal;
    expect(withLane(own, "acct_c")).toBe(own);
    expect(laneOf(own)).toBe("acct_c");
  });
});
