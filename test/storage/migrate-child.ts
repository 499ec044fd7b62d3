// Run as a separate process by migrations.test.ts: opens a store and migrates it, like a
// server replica or a modctl run starting at the same moment as others. Prints the ids it applied.
import { migrate } from "../../src/storage/migrate.js";
import { createPostgresDatabase } from "../../src/storage/postgres-database.js";
import { createSqliteDatabase } from "../../src/storage/sqlite-database.js";

const [kind, where, schema] = process.argv.slice(2);
const db = kind === "postgres"
  ? createPostgresDatabase(where!, schema ? { schema } : {})
  : createSqliteDatabase(where!);
try {
  process.stdout.write(JSON.stringify(await migrate(db)));
} finally {
  await db.close();
}
