import { existsSync } from "node:fs";
import path from "node:path";
import { printJson } from "./output.js";
import { createAccountStore, type AccountStore } from "../accounts/account-store.js";
import { readConfig, type Config } from "../config/config.js";
import { usableDataDir } from "../config/data-dir.js";
import type { Database } from "../storage/database.js";
import { SQLITE_FILE, openDatabase } from "../storage/open-database.js";

/** What a modctl command gets: the same config and store the server uses. */
export interface CliContext {
  config: Config;
  db: Database;
  accounts: AccountStore;
  print(value: unknown): void;
}

export async function withCliContext<T>(work: (ctx: CliContext) => Promise<T>, env = process.env): Promise<T> {
  const config = readConfig(env);
  const storeFile = path.join(config.dataDir, SQLITE_FILE);
  const fresh = config.databaseUrl === undefined && !existsSync(storeFile);
  // As the server checks it at start: a DATA_DIR under a file was a bare ENOTDIR, exit 1.
  if (config.databaseUrl === undefined) usableDataDir(config.dataDir);
  // An operator's command fails at once on an unreachable database; only the server waits for one.
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, storage: { ...config.storage, startupWaitMs: 0 }, ...(env.MODCTL_PG_SCHEMA ? { pgSchema: env.MODCTL_PG_SCHEMA } : {}) });
  // A mistyped DATA_DIR made a new, empty store without a word, and `account list` printed [].
  if (fresh) process.stderr.write(`modctl: note: no store was at ${storeFile}; made a new, empty one (is DATA_DIR the server's?)\n`);
  try {
    return await work({ config, db, accounts: createAccountStore(db), print: printJson });
  } finally {
    await db.close();
  }
}
