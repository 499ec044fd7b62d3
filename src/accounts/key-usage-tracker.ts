import type { AccountStore } from "./account-store.js";

/**
 * Remembers when each key was last used and writes "last used" in batches, so the hot path never
 * waits on a database write for what is only display information.
 */
export function createKeyUsageTracker(accounts: AccountStore, options: { flushMs?: number; clock?: () => number } = {}) {
  const clock = options.clock ?? Date.now;
  // The call's time, not the flush's: a key revoked between its last call and the flush must not
  // read as used after its revocation.
  const pending = new Map<string, number>();
  let flushing: Promise<void> = Promise.resolve();

  const writeBatch = async (batch: Array<[string, number]>) => {
    for (const [keyId, at] of batch) await accounts.markUsed([keyId], at);
  };
  const flush = () => {
    if (pending.size === 0) return flushing;
    const batch = [...pending];
    pending.clear();
    flushing = flushing.then(() => writeBatch(batch)).catch(() => undefined);
    return flushing;
  };
  const timer = setInterval(flush, options.flushMs ?? 5_000);
  timer.unref();

  return {
    record: (keyId: string) => {
      pending.set(keyId, Math.max(pending.get(keyId) ?? 0, clock()));
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

export type KeyUsageTracker = ReturnType<typeof createKeyUsageTracker>;
