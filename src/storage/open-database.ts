import path from "node:path";
import type { Logger } from "../base/logger.js";
import type { Database } from "./database.js";
import { migrate } from "./migrate.js";
import { createPostgresDatabase } from "./postgres-database.js";
import type { StorageConfig } from "./read-storage-config.js";
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
    await migrate(db);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  return db;
}
