import type { Migration } from "./migration.js";

/**
 * Which metering-journal segments have reached the usage table, and how far (the last entry's
 * sequence number). Written in the same transaction as the counts, so replaying a segment after
 * a crash, or two replicas replaying it at once, counts each entry exactly once.
 */
export const usageJournal: Migration = {
  id: "20261126-2000-usage-journal",
  statements: [
    `CREATE TABLE usage_journal (
      segment TEXT PRIMARY KEY,
      applied_through BIGINT NOT NULL,
      applied_at BIGINT NOT NULL
    )`,
    `CREATE INDEX usage_journal_applied_at ON usage_journal(applied_at)`,
  ],
};
