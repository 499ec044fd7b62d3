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
    refuseNewerSchema(done, migrations);
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
  refuseNewerSchema(done, migrations);
  return migrations.every((m) => done.has(m.id));
}

/**
 * A store migrated by a newer version of the service (say, after a downgrade, or an old replica
 * restarted beside upgraded ones): this version would run on it without a word, ignoring what the
 * newer one stores (an account disabled by `modctl account disable` answered again) and writing
 * rows the newer one has already respelt.
 */
export class NewerSchemaError extends Error {
  constructor(readonly unknownIds: string[]) {
    super(
      `the database was migrated by a newer version of this service (migration ${unknownIds.join(", ")}, which this version does not have): ` +
        "run that version or a later one, or restore a backup taken before the upgrade",
    );
    this.name = "NewerSchemaError";
  }
}

function refuseNewerSchema(done: ReadonlySet<string>, migrations: readonly Migration[]): void {
  const known = new Set(migrations.map((m) => m.id));
  const unknown = [...done].filter((id) => !known.has(id)).sort();
  if (unknown.length > 0) throw new NewerSchemaError(unknown);
}
