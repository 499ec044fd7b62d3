import type { Logger } from "../base/logger.js";
import { StorageUnavailableError } from "../storage/storage-errors.js";
import { bucketStart, type UsageCounts } from "./usage-counts.js";
import { mergeDeltas, readSegment, sumEntries, type JournalBatch, type SegmentRef } from "./journal-segment.js";
import { removeFile, type SegmentBatch, type UsageJournal } from "./usage-journal.js";
import type { UsageStore } from "./usage-store.js";

interface MeterOptions {
  store: UsageStore;
  journal: UsageJournal;
  clock?: () => number;
  log?: Logger;
  /** Write to SQL at least this often (METERING_FLUSH_MS, default 1000). */
  flushMs?: number;
  /** Write as soon as this many requests are journaled (METERING_MAX_PENDING, default 1000). */
  maxPending?: number;
}

const HEARTBEAT_MS = 10_000;
/** Dead instances' segments are looked for at start and then this often. */
const ORPHAN_SCAN_MS = 30_000;

/**
 * Counts accepted requests durably and writes them to SQL in batches. `record` appends the
 * request to the journal (usage-journal.ts) before the answer is sent; the SQL write happens
 * later, off the request path: each flush takes the journal lines written since the last one
 * and adds them to the usage table in one transaction that also records how far the segment got
 * (usage-store.ts); the segment's file is deleted once its last batch is in. So a crash at any
 * point loses no answered request, and replaying a segment never counts anything twice. A
 * request that dies after its journal line but before its answer is counted without being
 * answered: at most the requests in flight at the crash.
 *
 * While the database is down, batches wait in memory and their lines on disk (about 60 bytes a
 * request), one batch per segment, and are written in order once it is back.
 */
const unwritable = (cause: unknown) => new StorageUnavailableError("The usage journal cannot be written.", { cause });

export function createMeter(options: MeterOptions) {
  const { store, journal } = options;
  const clock = options.clock ?? Date.now;
  const maxPending = options.maxPending ?? 1000;
  /** Batches of ours that are not in SQL yet, oldest first. */
  const unwritten: SegmentBatch[] = [];
  let chain: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  let lastPrune = 0;
  let lastOrphanScan = 0;
  /** The journal's promise for the current turn's lines, and what record returns for it. */
  let lastWritten: Promise<void> | undefined;
  let lastRecorded: Promise<void> | undefined;

  // Said once when the journal starts refusing lines, and once when it takes them again: every
  // call is refused (503) meanwhile, and no line said why (found by an audit).
  let journalRefusing = false;
  const journalFailed = (error: unknown): void => {
    if (journalRefusing) return;
    journalRefusing = true;
    options.log?.error({ err: error }, "the usage journal cannot be written: calls are refused (503 storage_unavailable) until it can");
  };
  const journalWrote = (): void => {
    if (!journalRefusing) return;
    journalRefusing = false;
    options.log?.info({}, "the usage journal is written again");
  };

  /** Writes a batch of ours (from memory) or a dead process's segment (from its file); true when it is in SQL. */
  const writeSegment = async (segment: SegmentBatch | SegmentRef): Promise<boolean> => {
    const own = "deltas" in segment;
    try {
      const readEntries = () => (own ? journal.entries(segment) : readSegment(segment.file));
      let batch: JournalBatch | undefined = own ? segment : undefined;
      if (!batch) {
        const entries = readEntries();
        batch = entries ? sumEntries(entries) : undefined; // gone: another process wrote it
      }
      if (batch) await store.applySegment(segment.id, batch, readEntries, clock());
    } catch (error) {
      const level = error instanceof StorageUnavailableError ? "warn" : "error";
      options.log?.[level]({ err: error, segment: segment.id }, "usage flush failed; the journal keeps it for the next try");
      return false;
    }
    if (own && segment.last) journal.release(segment.id);
    if (!own || segment.last) removeFile(segment.file);
    return true;
  };

  /** Queues a batch; one that follows on from the last queued one of its segment joins it, so an outage keeps one per segment. */
  const enqueue = (batch: SegmentBatch): void => {
    const tail = unwritten[unwritten.length - 1];
    if (tail?.id !== batch.id || tail.lastSeq !== batch.afterSeq) {
      unwritten.push(batch);
      return;
    }
    unwritten[unwritten.length - 1] = { ...tail, lastSeq: batch.lastSeq, deltas: mergeDeltas(tail.deltas, batch.deltas), last: batch.last };
  };

  /** Writes the queued batches in order; false when one could not be written (it stays first). */
  const drain = async (): Promise<boolean> => {
    while (unwritten.length > 0) {
      if (!(await writeSegment(unwritten[0]!))) return false;
      unwritten.shift();
    }
    return true;
  };

  const replayOrphans = async () => {
    lastOrphanScan = clock();
    for (const orphan of journal.orphans()) {
      let all = true;
      for (const segment of orphan.segments) {
        if (!(await writeSegment(segment))) {
          all = false;
          break;
        }
      }
      if (!all) return;
      removeFile(orphan.ownerFile);
      if (orphan.segments.length > 0) options.log?.info({ segments: orphan.segments.length }, "replayed the usage journal of a stopped process");
    }
  };

  const writeAll = async () => {
    queued = undefined;
    const backlog = unwritten.length > 0;
    const batch = journal.take();
    if (batch) enqueue(batch);
    if (!(await drain())) return;
    // A backlog took a while to write: what was appended meanwhile goes out too.
    const more = backlog ? journal.take() : undefined;
    if (more) {
      enqueue(more);
      if (!(await drain())) return;
    }
    const now = clock();
    // A clock stepped back (now before the last time) runs them too: waiting for the clock to catch
    // up had left a crashed replica's journal unreplayed for as long as the step (audit, session 52).
    if (now - lastOrphanScan >= ORPHAN_SCAN_MS || now < lastOrphanScan) await replayOrphans();
    if (now - lastPrune > 3_600_000 || now < lastPrune) {
      lastPrune = now;
      await store.prune(now).catch(() => undefined);
    }
  };

  /** Queues one write after the current one; callers in the meantime share it. */
  const flush = (): Promise<void> => {
    if (!queued) {
      queued = chain.then(writeAll).catch((err: unknown) => options.log?.error({ err }, "usage flush failed"));
      chain = queued;
    }
    return queued;
  };

  // Segments a crashed run left behind go in before anything of ours.
  chain = chain.then(replayOrphans).catch((err: unknown) => options.log?.error({ err }, "usage journal replay failed"));

  const timer = setInterval(() => void flush(), options.flushMs ?? 1000);
  timer.unref();
  // A timer of its own: on the flush timer, METERING_FLUSH_MS over OWNER_STALE_MS (it may be up to
  // 600,000) left the heartbeat stale, a replica sharing DATA_DIR took this live process for dead
  // and replayed and deleted its open segment, and the requests answered after that were lost.
  const heartbeat = setInterval(() => journal.heartbeat(), HEARTBEAT_MS);
  heartbeat.unref();

  return {
    /**
     * Counts one accepted request: resolves once it is durable (its journal line written, see
     * usage-journal.ts); rejects with StorageUnavailableError when the journal cannot be written,
     * so the request is refused (503) rather than answered uncounted.
     */
    record(accountId: string, counts: UsageCounts): Promise<void> {
      let written: Promise<void>;
      try {
        written = journal.append(accountId, bucketStart(clock(), "minute"), counts);
      } catch (error) {
        journalFailed(error);
        return Promise.reject(unwritable(error));
      }
      if (journal.pending() >= maxPending && unwritten.length === 0) void flush();
      // The requests of one event-loop turn share the journal's promise, so they share its mapping too.
      if (written !== lastWritten) {
        lastWritten = written;
        lastRecorded = written.then(journalWrote, (error: unknown) => {
          journalFailed(error);
          return Promise.reject(unwritable(error));
        });
      }
      return lastRecorded!;
    },
    /** Throws when the journal cannot take a write now (for readiness: calls would be refused). */
    probeJournal(): void {
      journal.probe();
    },
    /** Writes everything journaled so far (readers call it to see their own latest requests). */
    flush,
    /** Batches of ours still waiting for the database (one per segment at most). */
    backlog: () => unwritten.length,
    async close(): Promise<void> {
      clearInterval(timer);
      clearInterval(heartbeat);
      await flush();
      await chain;
      const last = journal.rotate();
      if (last) enqueue(last);
      await drain();
      journal.close({ unwritten: unwritten.length });
    },
  };
}

export type Meter = ReturnType<typeof createMeter>;
