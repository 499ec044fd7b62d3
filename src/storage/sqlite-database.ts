import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import type { Database, SqlValue } from "./database.js";

/**
 * Embedded store. WAL mode lets `modctl` write while the server reads; busy_timeout makes
 * the two processes wait for each other instead of failing with SQLITE_BUSY.
 */
export function createSqliteDatabase(file: string): Database {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new BetterSqlite3(file);
  // exec, not pragma(): pragma() prepares a throwaway Statement, and on Node 24 the garbage
  // collector finalizing such a Statement at the wrong moment aborts the process
  // (better-sqlite3 12 asserts on a missing Environment). Prepared statements are cached below
  // for the database's lifetime, so no Statement ever becomes garbage while it is open.
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;");

  const statements = new Map<string, { stmt: BetterSqlite3.Statement; order: number[] }>();
  function prepare(sql: string) {
    let entry = statements.get(sql);
    if (!entry) {
      // Rewrite $n placeholders into positional ? and remember which param each one takes.
      const order: number[] = [];
      const text = sql.replace(/\$(\d+)/g, (_m, n: string) => {
        order.push(Number(n) - 1);
        return "?";
      });
      entry = { stmt: db.prepare(text), order };
      statements.set(sql, entry);
    }
    return entry;
  }
  const bind = (order: number[], params: readonly SqlValue[]) => order.map((i) => params[i] ?? null);

  // better-sqlite3 is synchronous, so a transaction's statements cannot interleave with
  // other callers' statements except across the awaits inside `work`; a queue prevents that.
  // One connection means one transaction for everybody: `owner` marks the async call chain
  // that opened it, so only that chain (and transactions it nests) runs inside it, while other
  // callers' transactions and writes wait their turn instead of being committed or rolled back
  // with it. (Reads are not queued: they may see a transaction's uncommitted rows.)
  let queue: Promise<unknown> = Promise.resolve();
  const owner = new AsyncLocalStorage<true>();
  const enqueue = <T>(task: () => Promise<T>): Promise<T> => {
    const result = queue.then(task, task);
    queue = result.catch(() => undefined);
    return result;
  };
  const write = (sql: string, params: readonly SqlValue[]): number => {
    if (params.length === 0 && sql.includes(";")) {
      db.exec(sql);
      return 0;
    }
    const { stmt, order } = prepare(sql);
    return stmt.run(...bind(order, params)).changes;
  };

  const database: Database = {
    dialect: "sqlite",
    async query(sql, params = []) {
      const { stmt, order } = prepare(sql);
      return stmt.all(...bind(order, params)) as never;
    },
    async execute(sql, params = []) {
      if (owner.getStore()) return write(sql, params);
      return enqueue(async () => write(sql, params));
    },
    transaction(work) {
      if (owner.getStore()) return work(database);
      return enqueue(async () => {
        db.exec("BEGIN IMMEDIATE");
        try {
          const result = await owner.run(true, () => work(database));
          db.exec("COMMIT");
          return result;
        } catch (error) {
          db.exec("ROLLBACK");
          throw error;
        }
      });
    },
    async withExclusiveLock(work) {
      return database.transaction(() => work());
    },
    async close() {
      db.close();
    },
  };
  return database;
}
