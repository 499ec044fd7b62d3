import pg from "pg";
import { silentLogger, type Logger } from "../base/logger.js";
import type { Database, SqlValue } from "./database.js";
import { STORAGE_DEFAULTS, type StorageConfig } from "./read-storage-config.js";
import { createReachability } from "./reachability.js";
import { isPostgresConnectionLost, isPostgresUnavailable, isPostgresUnstorableText, StorageUnavailableError, UnstorableTextError } from "./storage-errors.js";

// Any fixed number works; it only has to be the same for every replica of this service.
const MIGRATION_LOCK_ID = 7_240_114;
/** Migrations may wait for another replica's and may run long: their connection has its own bound. */
const MIGRATION_TIMEOUT_MS = 10 * 60_000;

interface PostgresOptions {
  /** Tests isolate themselves in a schema of their own. */
  schema?: string;
  timeouts?: Partial<StorageConfig>;
  log?: Logger;
}

/**
 * PostgreSQL through a pg Pool. Three rules keep a database fault from becoming a crash or a hang:
 * every client carries an error listener for its whole life (pg-pool removes its own while a
 * client is checked out, and an 'error' with no listener kills the process); every call is bounded
 * (connect, statement and read timeouts); and failures that mean "unavailable" surface as
 * StorageUnavailableError (503 + Retry-After), with calls failing fast while the server is
 * unreachable (see reachability.ts).
 */
export function createPostgresDatabase(connectionString: string, options: PostgresOptions = {}): Database {
  const limits = { ...STORAGE_DEFAULTS, ...options.timeouts };
  const log = options.log ?? silentLogger;
  const pool = new pg.Pool({
    connectionString,
    max: limits.poolSize,
    connectionTimeoutMillis: limits.connectTimeoutMs,
    statement_timeout: limits.statementTimeoutMs,
    query_timeout: limits.queryTimeoutMs,
    // A transaction left open by a stalled client must not hold row locks for long.
    idle_in_transaction_session_timeout: Math.max(10_000, limits.queryTimeoutMs * 2),
    application_name: limits.applicationName,
    keepAlive: true,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // Idle clients: the pool removes a broken one and emits here.
  pool.on("error", (err) => log.warn({ err: loggable(err) }, "idle database connection lost"));
  // Checked-out clients (transactions, the migration lock): the listener stays for the client's life.
  pool.on("connect", (client) => {
    client.on("error", (err) => log.warn({ err: loggable(err) }, "database connection lost"));
  });

  const reach = createReachability({
    probe: () => pool.query("SELECT 1"),
    log,
  });

  /** Turns a driver failure into StorageUnavailableError where retrying later is the answer. */
  const classify = (error: unknown): unknown => {
    if (error instanceof StorageUnavailableError) return error;
    if (isPostgresUnstorableText(error)) return new UnstorableTextError({ cause: error });
    reach.observe(error);
    if (!isPostgresUnavailable(error)) return error;
    return new StorageUnavailableError("The database is unavailable.", { cause: error });
  };

  const guarded = async <T>(run: () => Promise<T>): Promise<T> => {
    reach.throwIfUnreachable();
    try {
      return await run();
    } catch (error) {
      throw classify(error);
    }
  };

  /** Statements on a checked-out client; `inTransaction`: inside a BEGIN that we opened. */
  function overClient(client: pg.PoolClient, queryTimeoutMs: number, inTransaction: boolean): Database {
    const run = (sql: string, params: readonly SqlValue[]) =>
      // pg reads query_timeout per query; its types omit it.
      guarded(() => client.query<Record<string, unknown>>({ text: sql, values: params as SqlValue[], query_timeout: queryTimeoutMs } as pg.QueryConfig<SqlValue[]>));
    const db: Database = {
      dialect: "postgres",
      query: async (sql, params = []) => (await run(sql, params)).rows as never,
      execute: async (sql, params = []) => (await run(sql, params)).rowCount ?? 0,
      transaction: (work) => (inTransaction ? work(db) : transactionOn(client, work, queryTimeoutMs)),
      withExclusiveLock: (work) => work(db),
      async close() {
        throw new Error("close the database, not a connection handle");
      },
    };
    return db;
  }

  /** BEGIN … COMMIT on `client`; a failed ROLLBACK means the connection is unusable. */
  async function transactionOn<T>(client: pg.PoolClient, work: (tx: Database) => Promise<T>, queryTimeoutMs: number): Promise<T> {
    const tx = overClient(client, queryTimeoutMs, true);
    await tx.execute("BEGIN");
    try {
      const result = await work(tx);
      await tx.execute("COMMIT");
      return result;
    } catch (error) {
      const markBroken = () => ((client as { brokenConnection?: boolean }).brokenConnection = true);
      // A lost or silent connection is dropped instead: the server rolls back when it goes.
      if (error instanceof StorageUnavailableError) markBroken();
      else await client.query("ROLLBACK").catch(markBroken);
      throw error;
    }
  }

  /** A pooled connection for `work`; destroyed rather than reused when it may be broken. */
  async function withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await guarded(() => pool.connect());
    let failure: unknown;
    try {
      return await work(client);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      const broken = (client as { brokenConnection?: boolean }).brokenConnection === true || failure instanceof StorageUnavailableError;
      client.release(broken ? new Error("connection discarded after a failure") : undefined);
    }
  }

  const poolQuery = async (sql: string, params: readonly SqlValue[]) => {
    const read = /^\s*SELECT\b/i.test(sql);
    // A backend went away (a failover, pg_terminate_backend): another connection usually works.
    // Only reads are retried (a write might have been applied before the connection died), and
    // on each connection the pool still holds, which may all have lost theirs at once: one retry
    // had taken a second dead one (5 of 249 calls refused in an audit, session 52). Each failed
    // connection leaves the pool, so a fresh one comes at the latest after poolSize tries.
    for (let attempt = 1; ; attempt++) {
      try {
        return await guarded(() => pool.query(sql, params as SqlValue[]));
      } catch (error) {
        const lost = error instanceof StorageUnavailableError && isPostgresConnectionLost(error.cause);
        if (!(lost && read && attempt <= limits.poolSize)) throw error;
      }
    }
  };

  return {
    dialect: "postgres",
    query: async (sql, params = []) => (await poolQuery(sql, params)).rows,
    execute: async (sql, params = []) => (await guarded(() => pool.query(sql, params as SqlValue[]))).rowCount ?? 0,
    transaction: (work) => withClient((client) => transactionOn(client, work, limits.queryTimeoutMs)),
    async withExclusiveLock(work) {
      return withClient(async (client) => {
        await client.query("SET statement_timeout = 0");
        const locked = overClient(client, MIGRATION_TIMEOUT_MS, false);
        await locked.execute("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
        try {
          return await work(locked);
        } finally {
          await locked.execute("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]);
          await client.query(`SET statement_timeout = ${limits.statementTimeoutMs}`);
        }
      });
    },
    async close() {
      await pool.end();
    },
  };
}

/**
 * What a driver error says, without what it carries: pg attaches the client to a lost idle
 * connection's error, and logging it whole wrote 3 KB a line with the backend's cancel key
 * (enough to cancel the service's queries).
 */
function loggable(err: Error): { type: string; message: string; code?: string } {
  const code = (err as { code?: unknown }).code;
  return { type: err.name, message: err.message, ...(typeof code === "string" ? { code } : {}) };
}
