import { toNumber, type Database, type SqlValue } from "./database.js";
import { describeTables, UncopyableTableError, type TableShape } from "./store-tables.js";

/** The target already holds data: a copy only ever fills a new store, never merges into one. */
export class TargetNotEmptyError extends Error {
  override name = "TargetNotEmptyError";
  constructor(readonly tables: string[]) {
    super(`the target store is not empty (rows in ${tables.join(", ")}): store copy only fills a new, empty store`);
  }
}

/** The migrations' own record: the target has one from being migrated, replaced by the source's. */
const MIGRATIONS_TABLE = "schema_migrations";
/** Bound parameters per INSERT: well under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMS = 10_000;
const MAX_PAGE_ROWS = 1_000;

/**
 * Copies every table of `source` into `target` (both migrated by this version) in one transaction
 * on the target, reading the source in one transaction too, so the copy is one consistent moment
 * of it. The target must hold no rows. Row counts are checked before the commit: a mismatch rolls
 * the whole copy back. Returns the rows copied per table.
 */
export async function copyStore(source: Database, target: Database): Promise<Record<string, number>> {
  const tables = await describeTables(source);
  refuseDifferentShapes(tables, await describeTables(target));
  return source.transaction(async (src) => {
    // One snapshot for every table; on SQLite, BEGIN IMMEDIATE already keeps writers out meanwhile.
    if (src.dialect === "postgres") await src.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    return target.transaction(async (tgt) => {
      await refuseNonEmpty(tgt, tables);
      await tgt.execute(`DELETE FROM ${MIGRATIONS_TABLE}`);
      const copied: Record<string, number> = {};
      for (const table of tables) {
        const rows = await copyTable(src, tgt, table);
        await checkCount(src, tgt, table.name, rows);
        copied[table.name] = rows;
      }
      return copied;
    });
  });
}

/** Both ends are migrated by this version, so any difference is a store changed by hand: stop. */
function refuseDifferentShapes(source: TableShape[], target: TableShape[]): void {
  const columns = (t: TableShape) => t.columns.map((c) => `${c.name}:${c.kind}`).sort().join(",");
  const byName = new Map(target.map((t) => [t.name, t]));
  for (const table of source) {
    const other = byName.get(table.name);
    if (!other) throw new UncopyableTableError(`table ${JSON.stringify(table.name)} is not in the migrated target; store copy does not know how to copy it`);
    if (columns(other) !== columns(table)) {
      throw new UncopyableTableError(`table ${JSON.stringify(table.name)} has other columns in the target (${columns(other)}) than in the source (${columns(table)})`);
    }
  }
}

async function refuseNonEmpty(tgt: Database, tables: TableShape[]): Promise<void> {
  const full: string[] = [];
  for (const { name } of tables) {
    if (name === MIGRATIONS_TABLE) continue;
    if ((await tgt.query(`SELECT 1 AS found FROM "${name}" LIMIT 1`)).length > 0) full.push(name);
  }
  if (full.length > 0) throw new TargetNotEmptyError(full);
}

/**
 * Reads the table in primary-key order a page at a time (keyset paging, so memory stays bounded
 * and no page re-reads what an OFFSET skips) and writes each page with one INSERT. Whole numbers
 * travel as decimal text: pg hands BIGINT over as text already, and better-sqlite3 would round
 * one past 2^53 as a JS number. Each database turns the text back into its integer type.
 */
async function copyTable(src: Database, tgt: Database, table: TableShape): Promise<number> {
  const q = (name: string) => `"${name}"`;
  // Aliases of their own: ORDER BY a column's own name would sort by its text cast.
  const select = table.columns.map((c, i) => (c.kind === "integer" ? `CAST(${q(c.name)} AS TEXT)` : q(c.name)) + ` AS c${i}`).join(", ");
  const order = table.primaryKey.map(q).join(", ");
  const keyAt = table.primaryKey.map((k) => table.columns.findIndex((c) => c.name === k));
  const pageRows = Math.min(MAX_PAGE_ROWS, Math.floor(MAX_PARAMS / table.columns.length));
  const after = table.primaryKey.map((_, i) => `$${i + 2}`).join(", ");
  const first = `SELECT ${select} FROM ${q(table.name)} ORDER BY ${order} LIMIT $1`;
  const next = `SELECT ${select} FROM ${q(table.name)} WHERE (${order}) > (${after}) ORDER BY ${order} LIMIT $1`;
  let cursor: SqlValue[] | undefined;
  let copied = 0;
  for (;;) {
    const page = await src.query(cursor ? next : first, [pageRows, ...(cursor ?? [])]);
    if (page.length === 0) return copied;
    const values = page.map((row) => table.columns.map((c, i) => checkedValue(table.name, c.name, row[`c${i}`])));
    await tgt.execute(insertSql(table, values.length), values.flat());
    copied += values.length;
    const last = values[values.length - 1]!;
    cursor = keyAt.map((i) => last[i]!);
    if (page.length < pageRows) return copied;
  }
}

function insertSql(table: TableShape, rows: number): string {
  const width = table.columns.length;
  const tuples = Array.from({ length: rows }, (_, r) => `(${table.columns.map((_, c) => `$${r * width + c + 1}`).join(", ")})`);
  return `INSERT INTO "${table.name}" (${table.columns.map((c) => `"${c.name}"`).join(", ")}) VALUES ${tuples.join(", ")}`;
}

/** Text or NULL, as every column is read; anything else (a BLOB slipped into SQLite) is not carried over silently. */
function checkedValue(table: string, column: string, value: unknown): SqlValue {
  if (value === null || typeof value === "string") return value;
  throw new UncopyableTableError(`table "${table}" column ${column} holds a value of type ${typeof value}; store copy does not know how to copy it`);
}

async function checkCount(src: Database, tgt: Database, table: string, copied: number): Promise<void> {
  const count = async (db: Database) => toNumber((await db.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM "${table}"`))[0]!.n);
  const [inSource, inTarget] = [await count(src), await count(tgt)];
  if (inSource !== copied || inTarget !== copied) {
    throw new Error(`table "${table}": the source holds ${inSource} rows, ${copied} were copied and the target holds ${inTarget}; nothing was committed`);
  }
}
