import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { Database } from "../../src/storage/database.js";
import { openDatabase } from "../../src/storage/open-database.js";

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export const STORE_KINDS = ["sqlite", "postgres"] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/** Where one isolated store lives: a fresh SQLite directory, or a fresh PostgreSQL schema. */
export interface StoreLocation {
  kind: StoreKind;
  dataDir: string;
  databaseUrl: string | undefined;
  pgSchema: string | undefined;
  /** Opens (and migrates) another connection to this same store. */
  open(): Promise<Database>;
  /** Removes the store; close every Database opened on it first. */
  destroy(): Promise<void>;
}

export async function createStoreLocation(kind: StoreKind): Promise<StoreLocation> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "moderation-store-test-"));
  const pgSchema = kind === "postgres" ? await createSchema() : undefined;
  const databaseUrl = kind === "postgres" ? POSTGRES_URL : undefined;
  return {
    kind, dataDir, databaseUrl, pgSchema,
    open: () => openDatabase({ databaseUrl, dataDir, ...(pgSchema ? { pgSchema } : {}) }),
    async destroy() {
      if (pgSchema) await withPg((client) => client.query(`DROP SCHEMA IF EXISTS ${pgSchema} CASCADE`));
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function createSchema(): Promise<string> {
  const schema = `st_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await withPg((client) => client.query(`CREATE SCHEMA ${schema}`));
  return schema;
}

async function withPg<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A clock the test moves by hand. */
export function fakeClock(start = 1_800_000_000_000) {
  let now = start;
  const clock = () => now;
  clock.advance = (ms: number) => {
    now += ms;
  };
  return clock;
}
