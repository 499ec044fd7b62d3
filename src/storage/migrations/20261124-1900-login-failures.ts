import type { Migration } from "./migration.js";

/**
 * Failed dashboard log-ins per (email, client address), in SQL so every replica and restart
 * shares one count. Only a hash of the pair is stored: the table names no email or address.
 */
export const loginFailures: Migration = {
  id: "20261124-1900-login-failures",
  statements: [
    `CREATE TABLE login_failures (
      pair_hash TEXT PRIMARY KEY,
      failures INTEGER NOT NULL,
      since BIGINT NOT NULL
    )`,
    `CREATE INDEX login_failures_since ON login_failures(since)`,
  ],
};
