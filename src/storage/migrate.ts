import type { Database } from "./database.js";
import { MIGRATIONS } from "./migrations/index.js";
import type { Migration } from "./migrations/migration.js";

/**
 * Applies pending migrations under a cross-process lock, so replicas and modctl can start together.
 * A store that already has them all is seen to by a plain read, without the lock: on SQLite the
 * lock is a write lock, so every start (each `modctl account list`) waited on any other process's
 * write and failed with storage_unavailable after the busy timeout.
 */
export async function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
  if (await allApplied(db, migrations)) return [];
  return db.withExclusiveLock(async (locked) => {
    await locked.execute(`CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`);
    const done = new Set((await locked.query<{ id: string }>(`SELECT id FROM schema_migrations`)).map((r) => r.id));
    const applied: string[] = [];
    for (const migration of [...migrations].sort((a, b) => a.id.localeCompare(b.id))) {
      if (done.has(migration.id)) continue;
      await locked.transaction(async (tx) => {
        for (const statement of migration.statements) await tx.execute(statement);
        await migration.rewriteRows?.(tx);
        await tx.execute(`INSERT INTO schema_migrations (id, applied_at) VALUES ($1, $2)`, [migration.id, Date.now()]);
      });
      applied.push(migration.id);
    }
    return applied;
  });
}

/**
 * Whether every migration is recorded; false when the table is not there yet (a new store), which
 * is asked first so a new PostgreSQL store does not log "relation does not exist" at every start.
 */
async function allApplied(db: Database, migrations: readonly Migration[]): Promise<boolean> {
  const exists = db.dialect === "postgres"
    ? `SELECT 1 AS found WHERE to_regclass('schema_migrations') IS NOT NULL`
    : `SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`;
  if ((await db.query(exists)).length === 0) return false;
  const done = new Set((await db.query<{ id: string }>(`SELECT id FROM schema_migrations`)).map((r) => r.id));
  return migrations.every((m) => done.has(m.id));
}
