import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import BetterSqlite3 from "better-sqlite3";
import type { Database, SqlValue } from "./database.js";
import { STORAGE_DEFAULTS } from "./read-storage-config.js";
import { isSqliteUnavailable, StorageUnavailableError } from "./storage-errors.js";

/** Writes by every SQLite connection of this process (see changeToken). */
let processWrites = 0;

/**
 * How stale changeToken's view of other processes' commits may be: nothing next to what a person
 * does (modctl revoking a key and then trying it), long next to a request. Read once per event-loop
 * turn, as it was, data_version was read on nearly every request under load (a read transaction:
 * 5 µs alone, 39 µs of wall time in the loaded service, about 4 % of the event loop's time).
 */
const DATA_VERSION_MAX_AGE_MS = 2;

/** Pause between tries of a write whose lock another process holds (see whenUnlocked). */
const BUSY_RETRY_MS = 20;

/** Whether a classified error is another process's lock (SQLITE_BUSY and its extended codes). */
function isLockedByAnother(error: unknown): boolean {
  const code = (error instanceof StorageUnavailableError ? (error.cause as { code?: unknown } | undefined)?.code : undefined);
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** SQLITE_BUSY (another process held the lock past busy_timeout), a full or failing disk: retry later. */
function classify(error: unknown): unknown {
  if (!isSqliteUnavailable(error)) return error;
  return new StorageUnavailableError("The database is busy or unavailable.", { cause: error });
}

function unavailableAware<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return (...args) => {
    try {
      return fn(...args);
    } catch (error) {
      throw classify(error);
    }
  };
}

/**
 * Runs a connection's setup pragmas (all idempotent), retrying SQLITE_BUSY until `timeoutMs` has
 * passed. Switching a fresh file to WAL takes its exclusive lock, and where waiting could deadlock
 * (two connections upgrading their locks at once, as replicas or modctl opening one fresh store do)
 * SQLite returns SQLITE_BUSY without calling its busy handler: the wait is ours then. Seen in CI:
 * several processes migrating one fresh store, one failing "database is locked" at this line.
 */
export function execWhileBusy(db: Pick<BetterSqlite3.Database, "exec">, sql: string, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      db.exec(sql);
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() >= deadline) throw error;
      // Synchronous like the rest of better-sqlite3: this runs once per connection, at start-up.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/**
 * Embedded store. WAL mode lets `modctl` write while the server reads; busy_timeout makes
 * the two processes wait for each other's writes (on a timer, see whenUnlocked) before failing
 * with SQLITE_BUSY, which callers get as 503 storage_unavailable.
 */
export function createSqliteDatabase(file: string, options: { busyTimeoutMs?: number } = {}): Database {
  if (file !== ":memory:") createPrivately(file);
  const db = new BetterSqlite3(file);
  // exec, not pragma(): pragma() prepares a throwaway Statement, and on Node 24 the garbage
  // collector finalizing such a Statement at the wrong moment aborts the process
  // (better-sqlite3 12 asserts on a missing Environment). Prepared statements are cached below
  // for the database's lifetime, so no Statement ever becomes garbage while it is open.
  const busyTimeoutMs = Math.trunc(options.busyTimeoutMs ?? STORAGE_DEFAULTS.busyTimeoutMs);
  execWhileBusy(db, `PRAGMA busy_timeout = ${busyTimeoutMs}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;`, busyTimeoutMs);

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
  // One connection means one transaction for everybody, so `work` gets a handle bound to the
  // open transaction (as the Postgres driver hands out its pooled client): statements through
  // that handle run inside it, while other callers' transactions and writes wait their turn
  // instead of being committed or rolled back with it. (Reads are not queued: they may see a
  // transaction's uncommitted rows.) No AsyncLocalStorage: on Node 20 it installs promise
  // hooks that tax every promise in the process, which the request path cannot afford.
  let queue: Promise<unknown> = Promise.resolve();
  const enqueue = <T>(task: () => Promise<T>): Promise<T> => {
    const result = queue.then(task, task);
    queue = result.catch(() => undefined);
    return result;
  };
  // data_version moves when another connection commits; writes made in this process, on any
  // connection, are counted in processWrites.
  const dataVersion = db.prepare("PRAGMA data_version").pluck();
  const readDataVersion = unavailableAware(() => dataVersion.get());
  let dataVersionRead: unknown;
  /** performance.now() of the last read; -Infinity: read on the next ask. */
  let dataVersionReadAt = Number.NEGATIVE_INFINITY;
  /** The last token changeToken built, and the numbers it was built from. */
  let token = "";
  let tokenVersion: unknown;
  let tokenWrites = -1;
  const write = unavailableAware((sql: string, params: readonly SqlValue[]): number => {
    if (params.length === 0 && sql.includes(";")) {
      processWrites++;
      db.exec(sql);
      return 0;
    }
    const { stmt, order } = prepare(sql);
    const changes = stmt.run(...bind(order, params)).changes;
    // Counted once it ran: a try refused for another process's lock changes nothing, and counting
    // it would empty the caller and policy caches every 20 ms while the lock is held.
    processWrites++;
    return changes;
  });
  const read = unavailableAware((sql: string, params: readonly SqlValue[]) => {
    const { stmt, order } = prepare(sql);
    return stmt.all(...bind(order, params)) as never;
  });
  const query = async (sql: string, params: readonly SqlValue[] = []) => read(sql, params);
  const exec = unavailableAware((sql: string) => void db.exec(sql));

  /**
   * Runs `attempt` (one write statement, or BEGIN IMMEDIATE) without letting SQLite wait for
   * another process's lock, and waits between tries on a timer instead, up to busy_timeout.
   * better-sqlite3's own wait is synchronous: while modctl, a replica or a sqlite3 shell held the
   * lock, each usage flush (every second) froze every request, /healthz included, for the whole
   * timeout. Reads keep the synchronous wait: in WAL mode they meet a lock only in rare moments.
   * `deadline` is taken when the write was asked for, so time spent queued behind other writes
   * counts: during a long lock, writes no longer wait a timeout each, one after the other.
   */
  const whenUnlocked = async <T>(attempt: () => T, deadline: number): Promise<T> => {
    for (;;) {
      db.exec("PRAGMA busy_timeout = 0");
      try {
        return attempt();
      } catch (error) {
        if (!isLockedByAnother(error) || Date.now() >= deadline) throw error;
      } finally {
        db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
      }
      await sleep(Math.max(1, Math.min(BUSY_RETRY_MS, deadline - Date.now())));
    }
  };

  const runTransaction = async <T>(work: (tx: Database) => Promise<T>, deadline: number): Promise<T> => {
    await whenUnlocked(() => exec("BEGIN IMMEDIATE"), deadline);
    try {
      const result = await work(insideTransaction);
      exec("COMMIT");
      return result;
    } catch (error) {
      // SQLite rolls back by itself after some failures (e.g. SQLITE_FULL, SQLITE_IOERR); a
      // second ROLLBACK would throw and hide the original error.
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    } finally {
      processWrites++; // reads inside the transaction may have seen rows that are now gone
    }
  };

  /** The handle given to transaction work: writes go straight in, nested transactions join. */
  const insideTransaction: Database = {
    dialect: "sqlite",
    query,
    async execute(sql, params = []) {
      return write(sql, params);
    },
    transaction: (work) => work(insideTransaction),
    withExclusiveLock: (work) => work(insideTransaction),
    async close() {
      throw new Error("close the database, not a transaction handle");
    },
  };

  const database: Database = {
    dialect: "sqlite",
    query,
    async execute(sql, params = []) {
      const deadline = Date.now() + busyTimeoutMs;
      // Several statements in one string commit one by one: tried again, the first would run twice.
      if (params.length === 0 && sql.includes(";")) return enqueue(async () => write(sql, params));
      return enqueue(() => whenUnlocked(() => write(sql, params), deadline));
    },
    transaction: (work) => {
      const deadline = Date.now() + busyTimeoutMs;
      return enqueue(() => runTransaction(work, deadline));
    },
    // One connection per process: the lock is the write transaction itself (BEGIN IMMEDIATE
    // takes SQLite's RESERVED lock, which other processes such as modctl wait for).
    withExclusiveLock: (work) => database.transaction(work),
    async close() {
      db.close();
    },
    changeToken() {
      // Asking SQLite costs a read transaction, so it is asked at most once per
      // DATA_VERSION_MAX_AGE_MS: a commit by another process (modctl) is seen within that, a write
      // in this process (any connection) at once.
      const now = performance.now();
      if (now - dataVersionReadAt >= DATA_VERSION_MAX_AGE_MS) {
        dataVersionRead = readDataVersion();
        dataVersionReadAt = now;
      }
      // The same string while neither number changes (two caches ask on every request): no new
      // string to build, and an equal token compares as the same string.
      if (dataVersionRead !== tokenVersion || processWrites !== tokenWrites) {
        tokenVersion = dataVersionRead;
        tokenWrites = processWrites;
        token = `${String(dataVersionRead)}:${processWrites}`;
      }
      return token;
    },
  };
  return database;
}

/**
 * The store holds password and key hashes: the directory is created 0700 and the file 0600
 * (tightened if an older version left it 0644). SQLite gives the -wal and -shm files the
 * database file's mode.
 */
function createPrivately(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_RDWR, 0o600));
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
}
