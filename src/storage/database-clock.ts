import type { Database } from "./database.js";

/** The database server's clock, Unix milliseconds, in each dialect's SQL. */
const NOW_MS: Record<Database["dialect"], string> = {
  postgres: "SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint AS now",
  sqlite: "SELECT CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) AS now",
};

/**
 * The earlier of this process's clock and the database's: where clean-up deletes rows older than a
 * cut-off, one replica whose clock ran days ahead deleted every replica's rows (a usage_journal
 * row still needed, so a segment counted twice: 25 answered, 45 counted; every dashboard session;
 * every minute bucket), found by an audit of clock jumps (session 52). The database is the one
 * clock the replicas share; a process behind it deletes less, never more.
 */
export async function cleanUpNow(db: Database, now: number): Promise<number> {
  const [row] = await db.query<{ now: unknown }>(NOW_MS[db.dialect]);
  const databaseNow = Number(row?.now);
  return Number.isFinite(databaseNow) ? Math.min(now, databaseNow) : now;
}
