import type { TextClassifier } from "../classifiers/classifier.js";
import { createPatternClassifier } from "../classifiers/pattern/pattern-classifier.js";
import { createAccountStore, type AccountStore } from "../accounts/account-store.js";
import { createKeyUsageTracker, type KeyUsageTracker } from "../accounts/key-usage-tracker.js";
import type { Config } from "../config/config.js";
import type { Database } from "../storage/database.js";
import { openDatabase } from "../storage/open-database.js";
import { silentLogger, type Logger } from "./logger.js";
// [rate-limit] context import
// [signing] context import
// [images] context import
// [metering] context import

/**
 * Everything a request may need, built once from the config. Tests pass overrides
 * (fakes, a fake clock, a test schema) instead of patching globals.
 */
export interface AppContext {
  config: Config;
  log: Logger;
  clock: () => number;
  db: Database;
  accounts: AccountStore;
  keyUsage: KeyUsageTracker;
  textClassifier: TextClassifier;
  // [rate-limit] context field
  // [signing] context field
  // [images] context field
  // [metering] context field
  /** Releases connections, flushes buffers; the server calls it on shutdown. */
  close(): Promise<void>;
}

export interface AppContextOverrides {
  log?: Logger;
  clock?: () => number;
  db?: Database;
  textClassifier?: TextClassifier;
  /** PostgreSQL schema to use (tests isolate themselves in one). */
  pgSchema?: string;
  // [rate-limit] override
  // [signing] override
  // [images] override
  // [metering] override
}

export async function createAppContext(config: Config, overrides: AppContextOverrides = {}): Promise<AppContext> {
  const log = overrides.log ?? silentLogger;
  const clock = overrides.clock ?? Date.now;
  const closers: Array<() => Promise<void>> = [];
  try {
    const db = overrides.db ?? (await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      ...(overrides.pgSchema ? { pgSchema: overrides.pgSchema } : {}),
    }));
    if (!overrides.db) closers.push(() => db.close());
    const accounts = createAccountStore(db, clock);
    const keyUsage = createKeyUsageTracker(accounts, { clock });
    closers.unshift(() => keyUsage.close());
    const textClassifier = overrides.textClassifier ?? createPatternClassifier();
    // [rate-limit] build
    // [signing] build
    // [images] build
    // [metering] build

    return {
      config, log, clock, db, accounts, keyUsage, textClassifier,
      // [rate-limit] context value
      // [signing] context value
      // [images] context value
      // [metering] context value
      async close() {
        for (const close of closers) await close().catch((err: unknown) => log.warn({ err }, "error while closing"));
      },
    };
  } catch (error) {
    for (const close of closers) await close().catch(() => undefined);
    throw error;
  }
}
