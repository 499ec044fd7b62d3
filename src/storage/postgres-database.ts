import pg from "pg";
import type { Database, SqlValue } from "./database.js";

// Any fixed number works; it only has to be the same for every replica of this service.
const MIGRATION_LOCK_ID = 7_240_114;

export function createPostgresDatabase(connectionString: string, options: { schema?: string; poolSize?: number } = {}): Database {
  const pool = new pg.Pool({
    connectionString,
    max: options.poolSize ?? 10,
    // Tests isolate themselves in a schema of their own.
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);

  /** `inTransaction`: statements on `client` already run inside a BEGIN that we opened. */
  function over(client: pg.Pool | pg.PoolClient, inTransaction = false): Database {
    const db: Database = {
      dialect: "postgres",
      async query(sql, params: readonly SqlValue[] = []) {
        const result = await client.query(sql, params as SqlValue[]);
        return result.rows;
      },
      async execute(sql, params: readonly SqlValue[] = []) {
        const result = await client.query(sql, params as SqlValue[]);
        return result.rowCount ?? 0;
      },
      async transaction(work) {
        if (inTransaction) return work(db);
        // On the pool, a transaction takes a connection of its own; on a dedicated connection
        // (inside withExclusiveLock) it runs there.
        const conn = client === pool ? await pool.connect() : (client as pg.PoolClient);
        try {
          await conn.query("BEGIN");
          const result = await work(over(conn, true));
          await conn.query("COMMIT");
          return result;
        } catch (error) {
          await conn.query("ROLLBACK").catch(() => undefined);
          throw error;
        } finally {
          if (client === pool) conn.release();
        }
      },
      async withExclusiveLock(work) {
        const conn = await pool.connect();
        try {
          await conn.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
          try {
            return await work(over(conn));
          } finally {
            await conn.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]);
          }
        } finally {
          conn.release();
        }
      },
      async close() {
        if (client === pool) await pool.end();
      },
    };
    return db;
  }
  return over(pool);
}
