import type { Migration } from "./migration.js";

/**
 * Operator tools: an account can be disabled (its keys and sessions stop working, its data
 * stays), and sign-up can require a one-time invite code. Only a hash of each code is stored.
 */
export const accountAdmin: Migration = {
  id: "20261126-2010-account-admin",
  statements: [
    `ALTER TABLE accounts ADD COLUMN disabled_at BIGINT`,
    `CREATE TABLE signup_invites (
      code_hash TEXT PRIMARY KEY,
      prefix TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      used_at BIGINT,
      used_by TEXT
    )`,
  ],
};
