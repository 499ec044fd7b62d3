import type { Database } from "./database.js";

/** How a column's values travel between the two dialects: as text, or as a whole number written out in decimal. */
export type ColumnKind = "text" | "integer";

/** One table of a migrated store, read from the database's own catalogue. */
export interface TableShape {
  name: string;
  columns: { name: string; kind: ColumnKind }[];
  primaryKey: string[];
  /** Tables its foreign keys point at: they are filled first. */
  references: string[];
}

/**
 * A table `store copy` cannot carry over exactly (a column type the migrations never use, no
 * primary key to page by, an odd name): refused as a whole rather than skipped, so a copy never
 * leaves data behind without a word.
 */
export class UncopyableTableError extends Error {
  override name = "UncopyableTableError";
}

/** The declared types the migrations use (SQLite keeps them as written; PostgreSQL names them). */
const KINDS: Record<string, ColumnKind> = { text: "text", integer: "integer", bigint: "integer" };
const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/;

/** Every table of the store, in an order where a table comes after those it references. */
export async function describeTables(db: Database): Promise<TableShape[]> {
  const raw = db.dialect === "sqlite" ? await describeSqlite(db) : await describePostgres(db);
  return inDependencyOrder(raw.map(checkShape));
}

interface RawTable {
  name: string;
  columns: { name: string; type: string }[];
  primaryKey: string[];
  references: string[];
}

async function describeSqlite(db: Database): Promise<RawTable[]> {
  const tables = await db.query<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`);
  const out: RawTable[] = [];
  for (const { name } of tables) {
    const columns = await db.query<{ name: string; type: string; pk: number }>(`SELECT name, type, pk FROM pragma_table_info($1) ORDER BY cid`, [name]);
    const refs = await db.query<{ parent: string }>(`SELECT DISTINCT "table" AS parent FROM pragma_foreign_key_list($1)`, [name]);
    out.push({
      name,
      columns: columns.map((c) => ({ name: c.name, type: c.type })),
      primaryKey: columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
      references: refs.map((r) => r.parent),
    });
  }
  return out;
}

async function describePostgres(db: Database): Promise<RawTable[]> {
  const columns = await db.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
      ORDER BY c.table_name, c.ordinal_position`,
  );
  const keys = await db.query<{ table_name: string; column_name: string }>(
    `SELECT k.table_name, k.column_name FROM information_schema.table_constraints c
      JOIN information_schema.key_column_usage k ON k.constraint_schema = c.constraint_schema AND k.constraint_name = c.constraint_name
      WHERE c.table_schema = current_schema() AND c.constraint_type = 'PRIMARY KEY'
      ORDER BY k.table_name, k.ordinal_position`,
  );
  const refs = await db.query<{ child: string; parent: string }>(
    `SELECT DISTINCT c.relname AS child, p.relname AS parent FROM pg_constraint k
      JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
      WHERE k.contype = 'f' AND k.connamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())`,
  );
  const byName = new Map<string, RawTable>();
  for (const c of columns) {
    const table = byName.get(c.table_name) ?? { name: c.table_name, columns: [], primaryKey: [], references: [] };
    table.columns.push({ name: c.column_name, type: c.data_type });
    byName.set(c.table_name, table);
  }
  for (const k of keys) byName.get(k.table_name)?.primaryKey.push(k.column_name);
  for (const r of refs) byName.get(r.child)?.references.push(r.parent);
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function checkShape(table: RawTable): TableShape {
  const refuse = (why: string) => {
    throw new UncopyableTableError(`table ${JSON.stringify(table.name)} ${why}; store copy does not know how to copy it`);
  };
  // Names go into SQL quoted but unescaped: the migrations only make plain lower-case ones.
  if (!PLAIN_NAME.test(table.name)) refuse("has a name the migrations never make");
  if (table.primaryKey.length === 0) refuse("has no primary key to read it in order by");
  const columns = table.columns.map((c) => {
    const kind = KINDS[c.type.toLowerCase()];
    if (!PLAIN_NAME.test(c.name)) refuse(`has a column named ${JSON.stringify(c.name)}`);
    if (!kind) refuse(`has column ${c.name} of type ${c.type || "(none)"}`);
    return { name: c.name, kind: kind! };
  });
  return { name: table.name, columns, primaryKey: table.primaryKey, references: table.references.filter((r) => r !== table.name) };
}

/** Parents before children, so foreign keys hold at every insert; ties by name, for a stable summary. */
function inDependencyOrder(tables: TableShape[]): TableShape[] {
  const left = new Map(tables.map((t) => [t.name, t]));
  const ordered: TableShape[] = [];
  while (left.size > 0) {
    const ready = [...left.values()].filter((t) => t.references.every((r) => !left.has(r)));
    if (ready.length === 0) throw new UncopyableTableError(`tables ${[...left.keys()].join(", ")} reference each other in a cycle; store copy does not know how to copy them`);
    for (const t of ready) {
      ordered.push(t);
      left.delete(t.name);
    }
  }
  return ordered;
}
