import { ConfigError, nonEmpty, type Env } from "../base/env-values.js";

/** Bounds on every database call, so a dead or silent database answers 503 instead of hanging. */
export interface StorageConfig {
  /** Longest wait for a PostgreSQL connection, new or from a busy pool (DATABASE_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs: number;
  /** Server-side limit per statement: PostgreSQL cancels it (DATABASE_STATEMENT_TIMEOUT_MS). */
  statementTimeoutMs: number;
  /**
   * Client-side limit per query, for a server that stopped answering at all (DATABASE_QUERY_TIMEOUT_MS).
   * Above the statement timeout, so a merely slow statement is cancelled by the server first and
   * its connection stays usable.
   */
  queryTimeoutMs: number;
  /** Connections per process (DATABASE_POOL_SIZE). */
  poolSize: number;
  /**
   * SQLite: how long a write waits for another process's lock (e.g. modctl) before failing with
   * SQLITE_BUSY (DATABASE_BUSY_TIMEOUT_MS). better-sqlite3 waits synchronously, so keep it short.
   */
  busyTimeoutMs: number;
  /** PostgreSQL application_name, to find this service's backends in pg_stat_activity (DATABASE_APPLICATION_NAME). */
  applicationName: string;
  /**
   * How long a start waits for a PostgreSQL that cannot be reached (DATABASE_STARTUP_WAIT_MS; 0:
   * not at all): started together, as with docker compose, the service came up first and exited.
   */
  startupWaitMs: number;
}

export const STORAGE_DEFAULTS: StorageConfig = {
  connectTimeoutMs: 2_000,
  statementTimeoutMs: 3_000,
  queryTimeoutMs: 4_000,
  poolSize: 10,
  busyTimeoutMs: 2_000,
  applicationName: "moderation-service",
  startupWaitMs: 30_000,
};

export function readStorageConfig(env: Env): StorageConfig {
  const statementTimeoutMs = readMs(env, "DATABASE_STATEMENT_TIMEOUT_MS", STORAGE_DEFAULTS.statementTimeoutMs, 60 * 60_000);
  const queryTimeoutMs = readMs(env, "DATABASE_QUERY_TIMEOUT_MS", Math.max(STORAGE_DEFAULTS.queryTimeoutMs, statementTimeoutMs + 1_000), 60 * 60_000);
  if (queryTimeoutMs <= statementTimeoutMs) {
    throw new ConfigError(`DATABASE_QUERY_TIMEOUT_MS (${queryTimeoutMs}) must be above DATABASE_STATEMENT_TIMEOUT_MS (${statementTimeoutMs}), so the server cancels a slow statement first.`);
  }
  return {
    connectTimeoutMs: readMs(env, "DATABASE_CONNECT_TIMEOUT_MS", STORAGE_DEFAULTS.connectTimeoutMs, 10 * 60_000),
    statementTimeoutMs,
    queryTimeoutMs,
    poolSize: readMs(env, "DATABASE_POOL_SIZE", STORAGE_DEFAULTS.poolSize, 1_000),
    busyTimeoutMs: readMs(env, "DATABASE_BUSY_TIMEOUT_MS", STORAGE_DEFAULTS.busyTimeoutMs, 60_000),
    applicationName: readApplicationName(env),
    startupWaitMs: readStartupWait(env),
  };
}

function readStartupWait(env: Env): number {
  const raw = nonEmpty(env.DATABASE_STARTUP_WAIT_MS);
  if (raw === undefined) return STORAGE_DEFAULTS.startupWaitMs;
  if (!/^\d+$/.test(raw) || Number(raw) > 10 * 60_000) {
    throw new ConfigError(`DATABASE_STARTUP_WAIT_MS must be a whole number from 0 to 600000; got "${raw}".`);
  }
  return Number(raw);
}

/** A whole number from 1 to max (0 would mean "no limit" to the drivers, which is what we forbid). */
function readMs(env: Env, name: string, fallback: number, max: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from 1 to ${max}; got "${raw}".`);
  }
  return Number(raw);
}

function readApplicationName(env: Env): string {
  const raw = nonEmpty(env.DATABASE_APPLICATION_NAME);
  if (raw === undefined) return STORAGE_DEFAULTS.applicationName;
  // PostgreSQL keeps 63 bytes of printable ASCII.
  if (!/^[\x20-\x7e]{1,63}$/.test(raw)) throw new ConfigError(`DATABASE_APPLICATION_NAME must be 1 to 63 printable ASCII characters; got "${raw.slice(0, 80)}".`);
  return raw;
}
