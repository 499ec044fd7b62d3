import type { AccountStore } from "./account-store.js";

/**
 * Remembers which keys were used and writes "last used" in batches, so the hot path never
 * waits on a database write for what is only display information.
 */
export function createKeyUsageTracker(accounts: AccountStore, options: { flushMs?: number; clock?: () => number } = {}) {
  const clock = options.clock ?? Date.now;
  const pending = new Set<string>();
  let flushing: Promise<void> = Promise.resolve();

  const flush = () => {
    if (pending.size === 0) return flushing;
    const batch = [...pending];
    pending.clear();
    flushing = flushing.then(() => accounts.markUsed(batch, clock())).catch(() => undefined);
    return flushing;
  };
  const timer = setInterval(flush, options.flushMs ?? 5_000);
  timer.unref();

  return {
    record: (keyId: string) => {
      pending.add(keyId);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

export type KeyUsageTracker = ReturnType<typeof createKeyUsageTracker>;
