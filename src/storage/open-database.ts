import path from "node:path";
import type { Database } from "./database.js";
import { migrate } from "./migrate.js";
import { createPostgresDatabase } from "./postgres-database.js";
import { createSqliteDatabase } from "./sqlite-database.js";

/** Opens the configured store (PostgreSQL when a URL is given, else SQLite in dataDir) and migrates it. */
export async function openDatabase(options: { databaseUrl: string | undefined; dataDir: string; pgSchema?: string }): Promise<Database> {
  const db = options.databaseUrl
    ? createPostgresDatabase(options.databaseUrl, options.pgSchema ? { schema: options.pgSchema } : {})
    : createSqliteDatabase(path.join(options.dataDir, "moderation.sqlite"));
  try {
    await migrate(db);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  return db;
}
