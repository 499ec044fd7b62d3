import type { Migration } from "./migration.js";

export const accountsAndKeys: Migration = {
  id: "20261122-1500-accounts-and-keys",
  statements: [
    `CREATE TABLE accounts (
      id TEXT PRIMARY KEY,
      email TEXT NOT NULL UNIQUE,
      plan TEXT NOT NULL,
      custom_rpm INTEGER,
      password_hash TEXT,
      created_at BIGINT NOT NULL
    )`,
    `CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id),
      name TEXT NOT NULL,
      prefix TEXT NOT NULL,
      secret_hash TEXT NOT NULL UNIQUE,
      created_at BIGINT NOT NULL,
      last_used_at BIGINT,
      revoked_at BIGINT
    )`,
    `CREATE INDEX api_keys_account ON api_keys(account_id)`,
    // Who did what to which key, written in the same transaction as the change itself.
    `CREATE TABLE key_events (
      id TEXT PRIMARY KEY,
      key_id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      event TEXT NOT NULL,
      at BIGINT NOT NULL
    )`,
  ],
};
