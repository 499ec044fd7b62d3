import type { Migration } from "./migration.js";

/** Dashboard log-in sessions. Only a hash of the session token is stored, like API keys. */
export const dashboardSessions: Migration = {
  id: "20261123-1010-dashboard-sessions",
  statements: [
    `CREATE TABLE dashboard_sessions (
      token_hash TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id),
      created_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL
    )`,
    `CREATE INDEX dashboard_sessions_account ON dashboard_sessions(account_id)`,
  ],
};
