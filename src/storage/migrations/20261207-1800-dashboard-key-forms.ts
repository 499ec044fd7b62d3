import type { Migration } from "./migration.js";

/**
 * Which key each create-key form's one-time token made (dashboard/key-once.ts), in SQL so a resend
 * reaching another replica revokes that key instead of leaving it live. The primary key lets one
 * post of a token at a time through; rows older than ten minutes are deleted as forms are posted.
 * No foreign key to accounts: on PostgreSQL its check share-locks the account's row, and two forms
 * posted at once, each then waiting to lock that row for its key (account-store.ts createKey), deadlocked.
 */
export const dashboardKeyForms: Migration = {
  id: "20261207-1800-dashboard-key-forms",
  statements: [
    `CREATE TABLE dashboard_key_forms (
      account_id TEXT NOT NULL,
      token TEXT NOT NULL,
      key_id TEXT,
      used_at BIGINT NOT NULL,
      PRIMARY KEY (account_id, token)
    )`,
    `CREATE INDEX dashboard_key_forms_used_at ON dashboard_key_forms(used_at)`,
  ],
};
