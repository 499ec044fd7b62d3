import type { Migration } from "./migration.js";

/**
 * Per-account moderation policies (docs/policies.md). Every change is a new row, so versions are
 * kept and each row records who made it and when; the current policy of a scope is its highest
 * version. `scope` is '' for the account's own policy or a key id for a per-key override.
 * `rules` is the validated policy as JSON.
 */
export const policies: Migration = {
  id: "20261126-2100-policies",
  statements: [
    `CREATE TABLE policy_versions (
      policy_id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      scope TEXT NOT NULL,
      version INTEGER NOT NULL,
      rules TEXT NOT NULL,
      changed_at BIGINT NOT NULL,
      changed_by TEXT NOT NULL,
      PRIMARY KEY (account_id, scope, version)
    )`,
  ],
};
