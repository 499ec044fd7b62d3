export class LimiterFullError extends Error {
  override name = "LimiterFullError";
}

interface ConcurrencyLimiter {
  /** Runs `task` when a slot is free; waits in a bounded queue, which `signal` can leave. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  readonly active: number;
  readonly waiting: number;
}

/**
 * At most `max` tasks run at once and at most `maxQueue` wait; past that, callers are turned away
 * at once (LimiterFullError) rather than piling up behind a slow provider.
 */
export function createConcurrencyLimiter(options: { max: number; maxQueue: number }): ConcurrencyLimiter {
  if (!Number.isInteger(options.max) || options.max < 1) throw new RangeError(`max must be a positive integer; got ${options.max}`);
  let active = 0;
  const queue: Array<() => void> = [];

  // A finished task hands its slot straight to the next waiter, so `active` never dips and a
  // newcomer cannot slip in between.
  const release = (): void => {
    const next = queue.shift();
    if (next) next();
    else active--;
  };

  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    async run(task, signal) {
      signal?.throwIfAborted();
      if (active < options.max) {
        active++;
      } else {
        if (queue.length >= options.maxQueue) throw new LimiterFullError("too many tasks are waiting");
        await new Promise<void>((resolve, reject) => {
          const start = (): void => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
          };
          const onAbort = (): void => {
            const index = queue.indexOf(start);
            if (index >= 0) queue.splice(index, 1);
            reject(signal?.reason);
          };
          queue.push(start);
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
