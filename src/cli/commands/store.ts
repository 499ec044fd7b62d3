import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { readConfig, type Config } from "../../config/config.js";
import { journalDirOf, segmentFilesIn } from "../../metering/usage-journal.js";
import { copyStore } from "../../storage/copy-store.js";
import type { Database } from "../../storage/database.js";
import { migrate } from "../../storage/migrate.js";
import { SQLITE_FILE } from "../../storage/open-database.js";
import { createPostgresDatabase } from "../../storage/postgres-database.js";
import { backupSqlite } from "../../storage/sqlite-backup.js";
import { createSqliteDatabase } from "../../storage/sqlite-database.js";
import { isPostgresSettingRefused } from "../../storage/storage-errors.js";
import { withCliContext } from "../cli-context.js";
import { printJson } from "../output.js";
import { UsageError } from "../usage-error.js";

const USAGE = `usage: modctl store backup --out FILE
       modctl store copy --to (postgres://USER@HOST/DB | FILE.sqlite)   (docs/operations-database.md)`;

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** modctl store backup|copy: a consistent SQLite backup, and moving a store to PostgreSQL or back. */
export async function runStoreCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case "backup": return backup(rest);
    case "copy": return copy(rest);
    default: throw new UsageError(USAGE);
  }
}

async function backup(rest: string[]): Promise<number> {
  const { values } = parseArgs({ args: rest, options: { out: { type: "string" } } });
  if (!values.out) throw new UsageError("store backup needs --out FILE");
  const config = readConfig(process.env);
  // PostgreSQL has its own consistent, online dump; a row-by-row copy through modctl would be a worse one.
  if (config.databaseUrl !== undefined) {
    throw new UsageError("store backup copies the embedded SQLite store; this one is PostgreSQL (DATABASE_URL): back it up with pg_dump (docs/operations-database.md)");
  }
  printJson(await backupSqlite(existingStoreFile(config), path.resolve(values.out), config.storage.busyTimeoutMs));
  return 0;
}

async function copy(rest: string[]): Promise<number> {
  const { values } = parseArgs({ args: rest, options: { to: { type: "string" } } });
  if (!values.to) throw new UsageError("store copy needs --to postgres://… or --to FILE.sqlite");
  const to = values.to;
  if (!POSTGRES_URL.test(to) && to.includes("://")) throw new UsageError("--to must be a postgres:// (or postgresql://) URL or the path of a SQLite file");
  const config = readConfig(process.env);
  const source = config.databaseUrl === undefined ? existingStoreFile(config) : undefined;
  refuseUnwrittenUsage(config.dataDir);
  if (source !== undefined && !POSTGRES_URL.test(to) && sameFile(source, to)) throw new UsageError("--to names the store being copied");
  return withCliContext(async (ctx) => {
    const target = await openTarget(to, config);
    try {
      const tables = await copyStore(ctx.db, target);
      ctx.print({ from: ctx.db.dialect, to: target.dialect, tables });
      process.stderr.write("modctl: copied. Signing keys are not in the store: carry them over as docs/operations-database.md says.\n");
      return 0;
    } finally {
      await target.close();
    }
  });
}

/** The server's store file; a DATA_DIR without one is a mistyped setting, not an empty store to copy. */
function existingStoreFile(config: Config): string {
  const file = path.join(config.dataDir, SQLITE_FILE);
  if (!fs.existsSync(file)) throw new UsageError(`no store at ${file} (is DATA_DIR the server's?)`);
  return file;
}

/**
 * Usage counted by a server but not yet in SQL lies in journal segments under DATA_DIR: a copy
 * made now would leave it behind (and the old store's journal would later be replayed into the
 * old store, not the new one). A clean stop writes and deletes them; a crash's are replayed by
 * the next start.
 */
function refuseUnwrittenUsage(dataDir: string): void {
  const dir = journalDirOf(dataDir);
  const segments = segmentFilesIn(dir);
  if (segments.length > 0) {
    throw new Error(
      `${dir} holds ${segments.length} metering journal segment(s), usage not yet in the store: stop every server first ` +
        "(a clean stop writes them to the store); after a crash, start and stop a server on this DATA_DIR once to replay them",
    );
  }
}

function sameFile(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
}

/** The target, made and migrated like a server's store: PostgreSQL for a URL, else a SQLite file. */
async function openTarget(to: string, config: Config): Promise<Database> {
  const db = POSTGRES_URL.test(to)
    ? createPostgresDatabase(to, { timeouts: config.storage })
    : createSqliteDatabase(path.resolve(to), { busyTimeoutMs: config.storage.busyTimeoutMs });
  try {
    await migrate(db);
    return db;
  } catch (error) {
    await db.close().catch(() => undefined);
    // main.ts would name DATABASE_URL, which is the source: the refused settings are --to's.
    if (isPostgresSettingRefused(error) || isPostgresSettingRefused((error as { cause?: unknown }).cause)) {
      throw new UsageError(`--to: PostgreSQL refused the connection: ${(error as Error).message}`);
    }
    throw error;
  }
}
