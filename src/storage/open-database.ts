import path from "node:path";
import type { Logger } from "../base/logger.js";
import type { Database } from "./database.js";
import { migrate } from "./migrate.js";
import { createPostgresDatabase } from "./postgres-database.js";
import { STORAGE_DEFAULTS, type StorageConfig } from "./read-storage-config.js";
import { isPostgresSettingRefused, StorageUnavailableError } from "./storage-errors.js";
import { createSqliteDatabase } from "./sqlite-database.js";

/** The embedded store's file under DATA_DIR. */
export const SQLITE_FILE = "moderation.sqlite";

/** Opens the configured store (PostgreSQL when a URL is given, else SQLite in dataDir) and migrates it. */
export async function openDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  pgSchema?: string;
  /** Timeouts, pool size, application name (DATABASE_* variables); defaults when absent. */
  storage?: Partial<StorageConfig>;
  log?: Logger;
}): Promise<Database> {
  const db = options.databaseUrl
    ? createPostgresDatabase(options.databaseUrl, {
      ...(options.pgSchema ? { schema: options.pgSchema } : {}),
      ...(options.storage ? { timeouts: options.storage } : {}),
      ...(options.log ? { log: options.log } : {}),
    })
    : createSqliteDatabase(path.join(options.dataDir, SQLITE_FILE),
      options.storage?.busyTimeoutMs ? { busyTimeoutMs: options.storage.busyTimeoutMs } : {});
  try {
    await migrateOnceReachable(db, options.databaseUrl ? (options.storage?.startupWaitMs ?? STORAGE_DEFAULTS.startupWaitMs) : 0, options.log);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  return db;
}

const STARTUP_RETRY_MS = 1_000;

/**
 * Migrates, retrying for up to `waitMs` while the store cannot be reached (not when it refuses
 * the settings: a wrong password does not heal). Each attempt is bounded by the connect timeout.
 */
async function migrateOnceReachable(db: Database, waitMs: number, log: Logger | undefined): Promise<void> {
  const giveUpAt = Date.now() + waitMs;
  for (let attempt = 1; ; attempt++) {
    try {
      const applied = await migrate(db);
      // An upgrade says what it changed: the log was silent, so an operator could not tell a
      // store had been migrated (an upgrade audit's note). A fresh store lists every migration.
      if (applied.length > 0) log?.info({ migrations: applied }, "store migrated");
      return;
    } catch (error) {
      const retry = error instanceof StorageUnavailableError && !isPostgresSettingRefused(error.cause) && Date.now() + STARTUP_RETRY_MS < giveUpAt;
      if (!retry) throw error;
      if (attempt === 1) log?.warn({ err: (error.cause as Error | undefined)?.message ?? error.message, waitMs }, "the database cannot be reached; waiting for it (DATABASE_STARTUP_WAIT_MS)");
      await new Promise((resolve) => setTimeout(resolve, STARTUP_RETRY_MS));
    }
  }
}
