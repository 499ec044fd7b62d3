import { LaneQueue } from "../threads/lane-queue.js";

export class LimiterFullError extends Error {
  override name = "LimiterFullError";
}

interface ConcurrencyLimiter {
  /**
   * Runs `task` when a slot is free; waits in a bounded queue, which `signal` can leave. Waiting
   * tasks take turns by `lane` (the caller's account, threads/caller-lane.ts; default: one lane).
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal, lane?: string): Promise<T>;
  readonly active: number;
  readonly waiting: number;
}

interface Waiter {
  lane: string;
  start(): void;
  refuse(error: Error): void;
}

/**
 * At most `max` tasks run at once and at most `maxQueue` wait; past that, callers are turned away
 * at once (LimiterFullError) rather than piling up behind a slow provider. Waiting tasks take
 * turns by caller's account, and a full queue makes room for an account holding few places by
 * refusing the newest task of the account holding most (lane-queue.ts): one account's burst
 * against a slow provider had every other account wait behind it, then refused (found by an audit).
 */
export function createConcurrencyLimiter(options: { max: number; maxQueue: number }): ConcurrencyLimiter {
  if (!Number.isInteger(options.max) || options.max < 1) throw new RangeError(`max must be a positive integer; got ${options.max}`);
  let active = 0;
  const queue = new LaneQueue<Waiter>();
  const full = () => new LimiterFullError("too many tasks are waiting");

  // A finished task hands its slot straight to the next waiter, so `active` never dips and a
  // newcomer cannot slip in between.
  const release = (): void => {
    const next = queue.shift();
    if (next) next.start();
    else active--;
  };

  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    async run(task, signal, lane = "") {
      signal?.throwIfAborted();
      if (active < options.max) {
        active++;
        queue.served(lane);
      } else {
        if (queue.length >= options.maxQueue) {
          const displaced = queue.displaceFor(lane);
          if (!displaced) throw full();
          displaced.refuse(full());
        }
        await new Promise<void>((resolve, reject) => {
          const onAbort = (): void => {
            if (queue.remove(waiter)) reject(signal?.reason);
          };
          const waiter: Waiter = {
            lane,
            start() {
              signal?.removeEventListener("abort", onAbort);
              resolve();
            },
            refuse(error) {
              signal?.removeEventListener("abort", onAbort);
              reject(error);
            },
          };
          queue.push(waiter);
          signal?.addEventListener("abort", onAbort, { once: true });
        });
      }
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
