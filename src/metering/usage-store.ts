import { ApiError } from "../errors/api-error.js";
import type { Database } from "../storage/database.js";
import { toNumber } from "../storage/database.js";
import { addCounts, bucketStart, emptyCounts, GRANULARITIES, type Granularity, type UsageCounts, type UsageDelta } from "./usage-counts.js";
import { sumEntries, type JournalBatch, type JournalEntry } from "./journal-segment.js";
import { cleanUpNow } from "../storage/database-clock.js";

export interface UsageBucket {
  /** Bucket start, Unix milliseconds. */
  start: number;
  counts: UsageCounts;
}

interface UsageReport {
  granularity: Granularity;
  from: number;
  to: number;
  /** Non-empty buckets only, oldest first. */
  buckets: UsageBucket[];
  totals: UsageCounts;
}

type UsageRow = {
  bucket_start: unknown; requests: unknown; text_items: unknown; image_items: unknown; deep_analyses: unknown; flagged: unknown;
};

/** Minute buckets are for "what happened just now"; older ones are pruned to keep the table small. */
const MINUTE_RETENTION_MS = 3 * 86_400_000;
/** Journal rows are kept this long after their segment's last write; a segment is deleted once all written. */
const JOURNAL_RETENTION_MS = 7 * 86_400_000;

// Works on SQLite >= 3.24 and PostgreSQL alike; adding (never overwriting) lets replicas share rows.
const UPSERT = `INSERT INTO usage (account_id, granularity, bucket_start, requests, text_items, image_items, deep_analyses, flagged)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
  ON CONFLICT (account_id, granularity, bucket_start) DO UPDATE SET
    requests = usage.requests + excluded.requests,
    text_items = usage.text_items + excluded.text_items,
    image_items = usage.image_items + excluded.image_items,
    deep_analyses = usage.deep_analyses + excluded.deep_analyses,
    flagged = usage.flagged + excluded.flagged`;

/** Adds every delta to its minute, hour and day bucket, on `tx`. */
async function addDeltas(tx: Database, deltas: readonly UsageDelta[]): Promise<void> {
  // One order for every writer, so two replicas' transactions never wait on each other's rows in a cycle.
  const sorted = [...deltas].sort((a, b) => (a.accountId === b.accountId ? a.minuteStart - b.minuteStart : a.accountId < b.accountId ? -1 : 1));
  for (const { accountId, minuteStart, counts } of sorted) {
    for (const granularity of GRANULARITIES) {
      await tx.execute(UPSERT, [
        accountId, granularity, bucketStart(minuteStart, granularity),
        counts.requests, counts.textItems, counts.imageItems, counts.deepAnalyses, counts.flagged,
      ]);
    }
  }
}

/**
 * The most buckets one read answers. Hour and day buckets are kept for good, so ten years of an
 * account's hours (87,673 rows) came back as one 8.3 MB signed answer in 0.5-1 s, and ten such
 * reads at once held about 400 MB and slowed /healthz to 1.3 s. A year of hours is 8,760.
 */
const MAX_USAGE_BUCKETS = 10_000;

export function createUsageStore(db: Database) {
  return {
    /** Adds every delta to its minute, hour and day bucket, all in one transaction. */
    async add(deltas: readonly UsageDelta[]): Promise<void> {
      if (deltas.length === 0) return;
      await db.transaction((tx) => addDeltas(tx, deltas));
    },

    /**
     * Adds a batch of a journal segment's entries (those after `afterSeq` through `lastSeq`) and
     * records how far the segment got, in one transaction: one row per segment, whatever the
     * number of batches. What was applied before (a replay after a crash, two replicas replaying
     * one dead process's journal, a retry whose commit had gone through) adds nothing again. When
     * the row is not where the batch starts (a dead process's open segment applied in part, a
     * replica that took a live process for dead and replayed its file), the rest comes from
     * `readEntries` instead, while the file is there. Returns the requests added.
     */
    async applySegment(segment: string, batch: JournalBatch, readEntries: () => readonly JournalEntry[] | undefined, now: number): Promise<number> {
      if (batch.lastSeq <= batch.afterSeq) return 0;
      return db.transaction(async (tx) => {
        const created = await tx.execute(`INSERT INTO usage_journal (segment, applied_through, applied_at) VALUES ($1, 0, $2) ON CONFLICT (segment) DO NOTHING`, [segment, now]);
        // Locks the row on PostgreSQL, so a concurrent replay of this segment waits and then sees our result.
        await tx.execute(`UPDATE usage_journal SET applied_at = $2 WHERE segment = $1`, [segment, now]);
        const [row] = await tx.query<{ applied_through: unknown }>(`SELECT applied_through FROM usage_journal WHERE segment = $1`, [segment]);
        // A row made just now for a batch that starts past 0: ours, whose earlier batches went in and
        // whose row was pruned meanwhile (a clock far off; a store restored): they are not added
        // again. (Re-reading the file from 0 had counted them twice.)
        const through = created === 1 && batch.afterSeq > 0 ? batch.afterSeq : toNumber(row!.applied_through);
        if (through >= batch.lastSeq) return 0;
        const rest = through === batch.afterSeq ? batch : sumEntries((readEntries() ?? []).filter((e) => e.seq > through && e.seq <= batch.lastSeq), through);
        if (rest.lastSeq <= through) return 0;
        await addDeltas(tx, rest.deltas);
        await tx.execute(`UPDATE usage_journal SET applied_through = $2 WHERE segment = $1`, [segment, rest.lastSeq]);
        return rest.deltas.reduce((n, d) => n + d.counts.requests, 0);
      });
    },


    /** Buckets whose start lies in [from, to), and their totals; refused past MAX_USAGE_BUCKETS. */
    async read(accountId: string, granularity: Granularity, from: number, to: number): Promise<UsageReport> {
      const rows = await db.query<UsageRow>(
        `SELECT bucket_start, requests, text_items, image_items, deep_analyses, flagged FROM usage
          WHERE account_id = $1 AND granularity = $2 AND bucket_start >= $3 AND bucket_start < $4
          ORDER BY bucket_start LIMIT $5`,
        [accountId, granularity, bucketStart(from, granularity), to, MAX_USAGE_BUCKETS + 1],
      );
      if (rows.length > MAX_USAGE_BUCKETS) {
        throw new ApiError("invalid_request", `The range holds more than ${MAX_USAGE_BUCKETS} ${granularity} buckets of usage; ask for a shorter range or a coarser granularity.`);
      }
      const buckets = rows.map((row): UsageBucket => ({
        start: toNumber(row.bucket_start),
        counts: {
          requests: toNumber(row.requests), textItems: toNumber(row.text_items), imageItems: toNumber(row.image_items),
          deepAnalyses: toNumber(row.deep_analyses), flagged: toNumber(row.flagged),
        },
      }));
      const totals = buckets.reduce((sum, b) => addCounts(sum, b.counts), emptyCounts());
      return { granularity, from, to, buckets, totals };
    },

    /**
     * Deletes minute buckets past MINUTE_RETENTION_MS and journal rows past JOURNAL_RETENTION_MS,
     * counted back from `now` or from the database's clock if that is earlier (database-clock.ts).
     */
    async prune(now: number): Promise<void> {
      const cutOff = await cleanUpNow(db, now);
      await db.execute(`DELETE FROM usage WHERE granularity = 'minute' AND bucket_start < $1`, [cutOff - MINUTE_RETENTION_MS]);
      await db.execute(`DELETE FROM usage_journal WHERE applied_at < $1`, [cutOff - JOURNAL_RETENTION_MS]);
    },
  };
}

export type UsageStore = ReturnType<typeof createUsageStore>;
