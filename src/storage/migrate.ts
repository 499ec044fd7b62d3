import type { Database } from "./database.js";
import { MIGRATIONS } from "./migrations/index.js";
import type { Migration } from "./migrations/migration.js";

/** Applies pending migrations under a cross-process lock, so replicas and modctl can start together. */
export async function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
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
