import { afterAll, describe, expect, it } from "vitest";
import { copyStore, TargetNotEmptyError } from "../../src/storage/copy-store.js";
import type { Database, SqlValue } from "../../src/storage/database.js";
import { describeTables, UncopyableTableError } from "../../src/storage/store-tables.js";
import { createStoreLocation, type StoreKind, type StoreLocation } from "./store-fixtures.js";

const opened: Database[] = [];
const locations: StoreLocation[] = [];
afterAll(async () => {
  for (const db of opened) await db.close().catch(() => undefined);
  for (const location of locations) await location.destroy();
});

async function newStore(kind: StoreKind): Promise<Database> {
  const location = await createStoreLocation(kind);
  locations.push(location);
  const db = await location.open();
  opened.push(db);
  return db;
}

/** Text both databases must keep to the code point (PostgreSQL refuses only U+0000, tested below). */
const TEXTS = ["", "plain", "naïve café", "e\u0301 decomposed", "😀 👨‍👩‍👧 family", "עברית ومرحبا", "漢字かな", "quote ' \" back\\slash", "line\nbreak\ttab", "\u{10FFFF}", "x".repeat(5_000)];
/** Whole numbers past 2^53 (a JS number would round them) and at BIGINT's ends. */
const BIG = ["9007199254740993", "9223372036854775807", "-9223372036854775808", "0"];

/** A row in every table the migrations make, values chosen to break an inexact copy. */
async function populate(db: Database): Promise<void> {
  const run = (sql: string, params: SqlValue[]) => db.execute(sql, params);
  for (const [i, text] of TEXTS.entries()) {
    const account = `acct_${i}`;
    await run(`INSERT INTO accounts (id, email, plan, custom_rpm, password_hash, created_at, disabled_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [account, `${i}-${text.slice(0, 20)}@example.test`, "pro", i % 2 ? null : "2147483647", i % 3 ? null : `scrypt$${text}`, BIG[i % BIG.length]!, i % 2 ? "1796562427123" : null]);
    await run(`INSERT INTO api_keys (id, account_id, name, prefix, secret_hash, created_at, last_used_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [`key_${i}`, account, text, `mk_${i}`, `hash_${i}`, "1796562427000", i % 2 ? null : BIG[0]!, null]);
    await run(`INSERT INTO key_events (id, key_id, account_id, event, at) VALUES ($1, $2, $3, $4, $5)`, [`ev_${i}`, `key_${i}`, account, text, "1"]);
    await run(`INSERT INTO dashboard_sessions (token_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`, [`tok_${i}`, account, "1", BIG[1]!]);
    await run(`INSERT INTO login_failures (pair_hash, failures, since) VALUES ($1, $2, $3)`, [`pair_${i}`, String(i), "-1"]);
    await run(`INSERT INTO usage_journal (segment, applied_through, applied_at) VALUES ($1, $2, $3)`, [`seg.${text}`, BIG[0]!, "2"]);
    await run(`INSERT INTO signup_invites (code_hash, prefix, created_at, expires_at, used_at, used_by) VALUES ($1, $2, $3, $4, $5, $6)`,
      [`code_${i}`, "inv", "1", "2", i % 2 ? "3" : null, i % 2 ? text : null]);
    await run(`INSERT INTO policy_versions (policy_id, account_id, scope, version, rules, changed_at, changed_by) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [`pol_${i}`, account, i % 2 ? "" : `key_${i}`, String(i + 1), JSON.stringify({ block_list: [{ term: text }] }), "5", text]);
    await run(`INSERT INTO dashboard_key_forms (account_id, token, key_id, used_at) VALUES ($1, $2, $3, $4)`, [account, text || "t", i % 2 ? null : `key_${i}`, "7"]);
  }
  // More than one page (1,000 rows), with bucket starts of 9 and 10 digits: paged by the text
  // form they travel in, "999999999" would sort after "1000000000" and rows would be lost.
  await db.transaction(async (tx) => {
    for (let i = 0; i < 2_500; i++) {
      await tx.execute(`INSERT INTO usage (account_id, granularity, bucket_start, requests, text_items, image_items, deep_analyses, flagged) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [`acct_${i % TEXTS.length}`, "minute", String(999_998_000 + i * 60), BIG[i % BIG.length]!, String(i), "0", "0", String(i % 7)]);
    }
  });
}

/** Every row of every table as exact text, sorted in JS (the two databases collate text differently). */
async function dump(db: Database): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of await describeTables(db)) {
    const columns = table.columns.map((c) => (c.kind === "integer" ? `CAST("${c.name}" AS TEXT) AS "${c.name}"` : `"${c.name}"`));
    const rows = await db.query(`SELECT ${columns.join(", ")} FROM "${table.name}"`);
    out[table.name] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

const rowsIn = async (db: Database, table: string) => Number((await db.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM "${table}"`))[0]!.n);

describe("copyStore", () => {
  it("copies every table exactly, SQLite to PostgreSQL and back", async () => {
    const sqlite = await newStore("sqlite");
    await populate(sqlite);
    const postgres = await newStore("postgres");
    const there = await copyStore(sqlite, postgres);
    const back = await newStore("sqlite");
    const again = await copyStore(postgres, back);

    // Every table the migrations make has rows here, so each one's copy is checked: a new
    // migration's table fails this until the fixture fills it.
    expect(Object.entries(there).filter(([, rows]) => rows === 0)).toEqual([]);
    expect(there.usage).toBe(2_500);
    expect(again).toEqual(there);
    const original = await dump(sqlite);
    expect(await dump(postgres)).toEqual(original);
    expect(await dump(back)).toEqual(original);
  });

  it("refuses a target that holds rows and leaves it as it was", async () => {
    const source = await newStore("sqlite");
    await populate(source);
    const target = await newStore("postgres");
    await target.execute(`INSERT INTO login_failures (pair_hash, failures, since) VALUES ('p', 1, 1)`);
    const refusal = await copyStore(source, target).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(TargetNotEmptyError);
    expect((refusal as Error).message).toBe("the target store is not empty (rows in login_failures): store copy only fills a new, empty store");
    expect(await rowsIn(target, "accounts")).toBe(0);
    expect(await rowsIn(target, "login_failures")).toBe(1);
  });

  it("fails loudly on a table it does not know how to copy, copying nothing", async () => {
    const source = await newStore("sqlite");
    await populate(source);
    await source.execute(`CREATE TABLE notes (id TEXT PRIMARY KEY, body BLOB)`);
    const target = await newStore("postgres");
    await expect(copyStore(source, target)).rejects.toThrow(new UncopyableTableError(`table "notes" has column body of type BLOB; store copy does not know how to copy it`));

    const unkeyed = await newStore("sqlite");
    await unkeyed.execute(`CREATE TABLE scratch (note TEXT)`);
    await expect(copyStore(unkeyed, target)).rejects.toThrow(`table "scratch" has no primary key to read it in order by; store copy does not know how to copy it`);

    const extra = await newStore("sqlite");
    await extra.execute(`CREATE TABLE extra (id TEXT PRIMARY KEY)`);
    await expect(copyStore(extra, target)).rejects.toThrow(`table "extra" is not in the migrated target; store copy does not know how to copy it`);
    expect(await rowsIn(target, "accounts")).toBe(0);
  });

  it("is one transaction on the target: a row PostgreSQL refuses leaves it empty", async () => {
    const source = await newStore("sqlite");
    await populate(source);
    // U+0000 is the one character PostgreSQL's text cannot hold; key_events is copied after accounts.
    await source.execute(`INSERT INTO key_events (id, key_id, account_id, event, at) VALUES ('ev_nul', 'k', 'a', $1, 1)`, ["a\u0000b"]);
    const target = await newStore("postgres");
    await expect(copyStore(source, target)).rejects.toThrow();
    for (const table of ["accounts", "api_keys", "key_events", "usage"]) expect(await rowsIn(target, table)).toBe(0);
    expect(await rowsIn(target, "schema_migrations")).toBeGreaterThan(0);
  });
});
