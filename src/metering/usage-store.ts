import type { Database } from "../storage/database.js";
import { toNumber } from "../storage/database.js";
import { addCounts, bucketStart, emptyCounts, GRANULARITIES, type Granularity, type UsageCounts } from "./usage-counts.js";

export interface UsageBucket {
  /** Bucket start, Unix milliseconds. */
  start: number;
  counts: UsageCounts;
}

export interface UsageReport {
  granularity: Granularity;
  from: number;
  to: number;
  /** Non-empty buckets only, oldest first. */
  buckets: UsageBucket[];
  totals: UsageCounts;
}

/** One minute's counts for one account, as the meter hands them over. */
export interface UsageDelta {
  accountId: string;
  minuteStart: number;
  counts: UsageCounts;
}

type UsageRow = {
  bucket_start: unknown; requests: unknown; text_items: unknown; image_items: unknown; deep_analyses: unknown; flagged: unknown;
};

/** Minute buckets are for "what happened just now"; older ones are pruned to keep the table small. */
export const MINUTE_RETENTION_MS = 3 * 86_400_000;

// Works on SQLite >= 3.24 and PostgreSQL alike; adding (never overwriting) lets replicas share rows.
const UPSERT = `INSERT INTO usage (account_id, granularity, bucket_start, requests, text_items, image_items, deep_analyses, flagged)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
  ON CONFLICT (account_id, granularity, bucket_start) DO UPDATE SET
    requests = usage.requests + excluded.requests,
    text_items = usage.text_items + excluded.text_items,
    image_items = usage.image_items + excluded.image_items,
    deep_analyses = usage.deep_analyses + excluded.deep_analyses,
    flagged = usage.flagged + excluded.flagged`;

export function createUsageStore(db: Database) {
  return {
    /** Adds every delta to its minute, hour and day bucket, all in one transaction. */
    async add(deltas: readonly UsageDelta[]): Promise<void> {
      if (deltas.length === 0) return;
      await db.transaction(async (tx) => {
        for (const { accountId, minuteStart, counts } of deltas) {
          for (const granularity of GRANULARITIES) {
            await tx.execute(UPSERT, [
              accountId, granularity, bucketStart(minuteStart, granularity),
              counts.requests, counts.textItems, counts.imageItems, counts.deepAnalyses, counts.flagged,
            ]);
          }
        }
      });
    },

    /** Buckets whose start lies in [from, to), and their totals. */
    async read(accountId: string, granularity: Granularity, from: number, to: number): Promise<UsageReport> {
      const rows = await db.query<UsageRow>(
        `SELECT bucket_start, requests, text_items, image_items, deep_analyses, flagged FROM usage
          WHERE account_id = $1 AND granularity = $2 AND bucket_start >= $3 AND bucket_start < $4
          ORDER BY bucket_start`,
        [accountId, granularity, bucketStart(from, granularity), to],
      );
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

    async pruneMinutes(olderThan: number): Promise<number> {
      return db.execute(`DELETE FROM usage WHERE granularity = 'minute' AND bucket_start < $1`, [olderThan]);
    },
  };
}

export type UsageStore = ReturnType<typeof createUsageStore>;
