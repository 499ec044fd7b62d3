import { createAccountStore, type AccountStore } from "../accounts/account-store.js";
import { readConfig, type Config } from "../config/config.js";
import type { Database } from "../storage/database.js";
import { openDatabase } from "../storage/open-database.js";

/** What a modctl command gets: the same config and store the server uses. */
export interface CliContext {
  config: Config;
  db: Database;
  accounts: AccountStore;
  print(value: unknown): void;
}

export async function withCliContext<T>(work: (ctx: CliContext) => Promise<T>, env = process.env): Promise<T> {
  const config = readConfig(env);
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, storage: config.storage, ...(env.MODCTL_PG_SCHEMA ? { pgSchema: env.MODCTL_PG_SCHEMA } : {}) });
  try {
    return await work({ config, db, accounts: createAccountStore(db), print: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`) });
  } finally {
    await db.close();
  }
}
