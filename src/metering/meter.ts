import type { Logger } from "../app/logger.js";
import { addCounts, bucketStart, emptyCounts, type UsageCounts } from "./usage-counts.js";
import { MINUTE_RETENTION_MS, type UsageDelta, type UsageStore } from "./usage-store.js";

export interface MeterOptions {
  store: UsageStore;
  clock?: () => number;
  log?: Logger;
  /** Flush at least this often (METERING_FLUSH_MS, default 1000). */
  flushMs?: number;
  /** Flush as soon as this many requests are buffered (METERING_MAX_PENDING, default 1000). */
  maxPending?: number;
}

/**
 * Buffers usage in memory and writes it to SQL in batches, so a moderation request never
 * waits on a usage write in the common case.
 *
 * Crash bound: a request is answered either before its count is flushed (only while fewer
 * than `maxPending` requests are buffered) or after (the request that fills the buffer, and
 * every one after it, waits for the flush). So at any moment the answered-but-unwritten
 * requests are at most the batch being written plus the buffer: fewer than 2 × maxPending,
 * and in practice no more than about one flush interval of traffic.
 */
export function createMeter(options: MeterOptions) {
  const clock = options.clock ?? Date.now;
  const maxPending = options.maxPending ?? 1000;
  // Keyed by account and minute: a batch holds one row per account per minute, not per request.
  let buffer = new Map<string, UsageDelta>();
  let pending = 0;
  let chain: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  let lastPrune = 0;

  const writeBuffer = async () => {
    queued = undefined;
    if (buffer.size === 0) return;
    // The batch is taken when the write starts, not when it was queued, so everything that
    // arrived while the previous write ran goes out in this one.
    const batch = [...buffer.values()];
    buffer = new Map();
    pending = 0;
    try {
      await options.store.add(batch);
    } catch (error) {
      // Keep the counts (they go out with the next flush) rather than lose them.
      for (const delta of batch) merge(delta.accountId, delta.minuteStart, delta.counts);
      options.log?.warn({ err: error, rows: batch.length }, "usage flush failed; will retry");
      return;
    }
    const now = clock();
    if (now - lastPrune > 3_600_000) {
      lastPrune = now;
      await options.store.pruneMinutes(now - MINUTE_RETENTION_MS).catch(() => undefined);
    }
  };

  const merge = (accountId: string, minuteStart: number, counts: UsageCounts) => {
    const key = `${accountId}\u0000${minuteStart}`;
    const existing = buffer.get(key);
    if (existing) addCounts(existing.counts, counts);
    else buffer.set(key, { accountId, minuteStart, counts: addCounts(emptyCounts(), counts) });
    pending += counts.requests;
  };

  /** Queues one write after the current one; callers in the meantime share it. */
  const flush = (): Promise<void> => {
    if (!queued) {
      queued = chain.then(writeBuffer);
      chain = queued;
    }
    return queued;
  };

  const timer = setInterval(() => void flush(), options.flushMs ?? 1000);
  timer.unref();

  return {
    /** Counts one accepted request; resolves at once unless the buffer is full. */
    async record(accountId: string, counts: UsageCounts): Promise<void> {
      merge(accountId, bucketStart(clock(), "minute"), counts);
      if (pending >= maxPending) await flush();
    },
    /** Writes everything buffered so far (readers call it to see their own latest requests). */
    flush,
    async close(): Promise<void> {
      clearInterval(timer);
      await flush();
    },
  };
}

export type Meter = ReturnType<typeof createMeter>;
