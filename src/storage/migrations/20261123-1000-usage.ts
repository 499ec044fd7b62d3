import type { Migration } from "./migration.js";

/**
 * Metered usage, one row per account, granularity and bucket. Rows are only ever added to
 * with an upsert, so concurrent writers (replicas) never lose each other's counts.
 */
export const usageBuckets: Migration = {
  id: "20261123-1000-usage",
  statements: [
    `CREATE TABLE usage (
      account_id TEXT NOT NULL,
      granularity TEXT NOT NULL,
      bucket_start BIGINT NOT NULL,
      requests BIGINT NOT NULL DEFAULT 0,
      text_items BIGINT NOT NULL DEFAULT 0,
      image_items BIGINT NOT NULL DEFAULT 0,
      deep_analyses BIGINT NOT NULL DEFAULT 0,
      flagged BIGINT NOT NULL DEFAULT 0,
      PRIMARY KEY (account_id, granularity, bucket_start)
    )`,
  ],
};
