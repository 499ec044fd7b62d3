import { spawn } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Database } from "../../src/storage/database.js";
import { migrate, NewerSchemaError } from "../../src/storage/migrate.js";
import { MIGRATIONS } from "../../src/storage/migrations/index.js";
import { createStoreLocation, STORE_KINDS, type StoreLocation } from "./store-fixtures.js";

const ALL_IDS = MIGRATIONS.map((m) => m.id).sort();

/** Runs migrate-child.ts in its own process and returns the migration ids it applied. */
function migrateInChild(location: StoreLocation): Promise<string[]> {
  const target = location.kind === "postgres"
    ? [location.databaseUrl!, location.pgSchema!]
    : [path.join(location.dataDir, "moderation.sqlite")];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "test/storage/migrate-child.ts", location.kind, ...target], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

describe.each(STORE_KINDS)("migrations on %s", (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  async function freshStore(): Promise<StoreLocation> {
    const location = await createStoreLocation(kind);
    cleanups.push(() => location.destroy());
    return location;
  }
  async function open(location: StoreLocation): Promise<Database> {
    const db = await location.open();
    cleanups.push(() => db.close());
    return db;
  }
  const appliedIds = async (db: Database) =>
    (await db.query<{ id: string }>(`SELECT id FROM schema_migrations ORDER BY id`)).map((r) => r.id);

  it("applies every migration once, and is a no-op when run again", async () => {
    const location = await freshStore();
    const db = await open(location);
    expect(await appliedIds(db)).toEqual(ALL_IDS);
    expect(await migrate(db)).toEqual([]);
    expect(await migrate(db)).toEqual([]);
    expect(await appliedIds(db)).toEqual(ALL_IDS);
    // Re-opening keeps the data.
    await db.execute(`INSERT INTO accounts (id, email, plan, custom_rpm, password_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      ["acct_keep", "keep@example.test", "free", null, null, 1]);
    const again = await open(location);
    expect(await appliedIds(again)).toEqual(ALL_IDS);
    expect(await again.query(`SELECT email FROM accounts WHERE id = $1`, ["acct_keep"])).toEqual([{ email: "keep@example.test" }]);
  });

  // An old version started on a store a newer one had migrated ran without a word: an account
  // `modctl account disable` had disabled answered again, and new sign-ups were stored in a
  // spelling the newer version had already respelt everywhere.
  it("refuses a store migrated by a newer version, by the ids it does not have, and changes nothing", async () => {
    const location = await freshStore();
    const db = await open(location);
    await db.execute(`INSERT INTO schema_migrations (id, applied_at) VALUES ($1, $2)`, ["29991231-0000-from-the-future", 1]);
    await expect(migrate(db)).rejects.toThrow(/migrated by a newer version of this service \(migration 29991231-0000-from-the-future,/);
    await expect(migrate(db)).rejects.toBeInstanceOf(NewerSchemaError);
    // This version's own last migration missing too: still refused, before anything is applied.
    await db.execute(`DELETE FROM schema_migrations WHERE id = $1`, [ALL_IDS.at(-1)!]);
    await expect(migrate(db)).rejects.toBeInstanceOf(NewerSchemaError);
    expect(await appliedIds(db)).toEqual([...ALL_IDS.slice(0, -1), "29991231-0000-from-the-future"].sort());
    // An older version (one migration fewer) on a store this version migrated.
    const current = await open(await freshStore());
    await expect(migrate(current, MIGRATIONS.filter((m) => m.id !== ALL_IDS.at(-1)))).rejects.toThrow(ALL_IDS.at(-1)!);
  });

  it("lets several processes open one fresh store at the same moment: each migration is applied exactly once", async () => {
    const location = await freshStore();
    const results = await Promise.all([migrateInChild(location), migrateInChild(location), migrateInChild(location)]);
    expect(results.flat().sort()).toEqual(ALL_IDS);
    const db = await open(location);
    expect(await appliedIds(db)).toEqual(ALL_IDS);
  });

  if (kind === "postgres") {
    it("lets several connections in one process open one fresh schema at the same moment", async () => {
      const location = await freshStore();
      const dbs = await Promise.all([open(location), open(location), open(location)]);
      for (const db of dbs) expect(await appliedIds(db)).toEqual(ALL_IDS);
    });
  }

  it("rolls a failed migration back entirely, then applies it once fixed", async () => {
    const location = await freshStore();
    const db = await open(location);
    const broken = { id: "29990101-0000-broken", statements: [`CREATE TABLE half_done (a INTEGER)`, `THIS IS NOT SQL`] };
    await expect(migrate(db, [...MIGRATIONS, broken])).rejects.toThrow();
    expect(await appliedIds(db)).toEqual(ALL_IDS);
    // The first statement was undone with the second: the fixed migration can create the table.
    const fixed = { id: broken.id, statements: [`CREATE TABLE half_done (a INTEGER)`] };
    expect(await migrate(db, [...MIGRATIONS, fixed])).toEqual([broken.id]);
    expect(await db.query(`SELECT a FROM half_done`)).toEqual([]);
  });

  it("respells older accounts' addresses the way new sign-ups are spelt, unless that spelling is taken", async () => {
    const location = await freshStore();
    const db = await open(location);
    const insert = (id: string, email: string) => db.execute(
      `INSERT INTO accounts (id, email, plan, custom_rpm, password_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)`, [id, email, "free", null, null, 1]);
    // As stored before addresses were normalised: lower-cased and trimmed only.
    await insert("acct_decomposed", "j\u030Cosef@example.test");
    await insert("acct_root_dot", "root@example.test..");
    await insert("acct_taken_new", "both@example.test");
    await insert("acct_taken_old", "both@example.test.");
    await db.execute(`DELETE FROM schema_migrations WHERE id = $1`, ["20261203-1300-one-email-spelling"]);
    expect(await migrate(db)).toEqual(["20261203-1300-one-email-spelling"]);
    const emails = Object.fromEntries((await db.query<{ id: string; email: string }>(`SELECT id, email FROM accounts`)).map((r) => [r.id, r.email]));
    expect(emails).toEqual({
      acct_decomposed: "\u01F0osef@example.test",
      acct_root_dot: "root@example.test",
      acct_taken_new: "both@example.test",
      acct_taken_old: "both@example.test.",
    });
  });

  it("respells an internationalised domain in its ASCII form, which a browser sends at log-in", async () => {
    const db = await open(await freshStore());
    await db.execute(`INSERT INTO accounts (id, email, plan, custom_rpm, password_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)`, ["acct_idn", "ann@b\u00fccher.test", "free", null, null, 1]);
    await db.execute(`DELETE FROM schema_migrations WHERE id = $1`, ["20261207-1200-ascii-email-domains"]);
    expect(await migrate(db)).toEqual(["20261207-1200-ascii-email-domains"]);
    expect(await db.query(`SELECT email FROM accounts WHERE id = 'acct_idn'`)).toEqual([{ email: "ann@xn--bcher-kva.test" }]);
  });
});
