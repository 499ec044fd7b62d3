import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { toApiError } from "../../src/errors/api-error.js";
import { createAccountStore } from "../../src/accounts/account-store.js";
import { openDatabase } from "../../src/storage/open-database.js";
import { createSqliteDatabase } from "../../src/storage/sqlite-database.js";
import { StorageUnavailableError } from "../../src/storage/storage-errors.js";
import { startServerWithKey, type TestServer } from "../support/test-server.js";

// The embedded store, while another process (modctl, a second replica) holds SQLite's write
// lock past the busy timeout: writes fail as storage_unavailable (503 + Retry-After), never 500;
// reads and the moderation API keep working (usage waits in the journal); all resumes after.

let server: TestServer;
let key: string;
let other: BetterSqlite3.Database;
beforeAll(async () => {
  ({ server, key } = await startServerWithKey({ env: { DATABASE_BUSY_TIMEOUT_MS: "100", METERING_FLUSH_MS: "50" } }));
  other = new BetterSqlite3(path.join(server.dataDir, "moderation.sqlite"));
});
afterAll(async () => {
  if (other?.inTransaction) other.exec("ROLLBACK");
  other?.close();
  await server?.close();
});

const moderate = () => fetch(`${server.httpUrl}/v1/moderate`, {
  method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: JSON.stringify({ input: [{ type: "text", text: "hi" }] }),
});

it("maps SQLITE_BUSY to storage_unavailable, keeps answering, and writes the usage once the lock is gone", async () => {
  other.exec("BEGIN IMMEDIATE");
  try {
    const db = createSqliteDatabase(path.join(server.dataDir, "moderation.sqlite"), { busyTimeoutMs: 50 });
    const write = db.execute(`DELETE FROM dashboard_sessions WHERE expires_at < 0`);
    await expect(write).rejects.toBeInstanceOf(StorageUnavailableError);
    const apiError = toApiError(await write.catch((e: unknown) => e));
    expect({ code: apiError.code, status: apiError.httpStatus, headers: apiError.headers }).toEqual({ code: "storage_unavailable", status: 503, headers: { "retry-after": "1" } });
    await db.close();

    // WAL: the server's reads (the key lookup) do not wait for the writer; the usage write does, in the background.
    for (let i = 0; i < 5; i++) expect((await moderate()).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200)); // a few failed flushes
    expect((await fetch(`${server.httpUrl}/healthz`)).status).toBe(200);
  } finally {
    other.exec("ROLLBACK");
  }
  const usage = (await (await fetch(`${server.httpUrl}/v1/usage?granularity=minute`, { headers: { "x-api-key": key } })).json()) as { totals: { requests: number } };
  expect(usage.totals.requests).toBe(5);
});

it("waits for another process's lock on a timer, so the event loop runs on and the write lands once the lock is gone", async () => {
  const db = createSqliteDatabase(path.join(server.dataDir, "moderation.sqlite"), { busyTimeoutMs: 5000 });
  const order: string[] = [];
  other.exec("BEGIN IMMEDIATE");
  try {
    const write = db.execute(`DELETE FROM dashboard_sessions WHERE expires_at < 0`).then(() => order.push("write"));
    const transaction = db.transaction(async (tx) => tx.execute(`DELETE FROM dashboard_sessions WHERE expires_at < 0`)).then(() => order.push("transaction"));
    // SQLite's own busy wait would hold the thread for the whole 5 s: no timer could release the lock.
    await new Promise((resolve) => setTimeout(resolve, 100));
    order.push("timer");
    other.exec("ROLLBACK");
    await Promise.all([write, transaction]);
    expect(order).toEqual(["timer", "write", "transaction"]);
  } finally {
    if (other.inTransaction) other.exec("ROLLBACK");
    await db.close();
  }
});

it("counts a write's time queued behind others against its busy timeout: queued writes fail together, not a timeout each", async () => {
  const db = createSqliteDatabase(path.join(server.dataDir, "moderation.sqlite"), { busyTimeoutMs: 300 });
  other.exec("BEGIN IMMEDIATE");
  const released = new Promise((resolve) => setTimeout(resolve, 2_000)).then(() => other.exec("ROLLBACK"));
  try {
    // One after another, each waiting its own 300 ms, the last would have outlasted the lock and succeeded.
    const writes = await Promise.allSettled(Array.from({ length: 8 }, () => db.execute(`DELETE FROM dashboard_sessions WHERE expires_at < 0`)));
    expect(other.inTransaction).toBe(true);
    expect(writes.map((w) => (w.status === "rejected" && w.reason instanceof StorageUnavailableError ? "unavailable" : w.status))).toEqual(Array(8).fill("unavailable"));
  } finally {
    await released;
    await db.close();
  }
});

it("opens a migrated store for reading while another process holds the write lock (modctl's reads failed with storage_unavailable)", async () => {
  other.exec("BEGIN IMMEDIATE");
  try {
    const db = await openDatabase({ databaseUrl: undefined, dataDir: server.dataDir, storage: { busyTimeoutMs: 100 } });
    try {
      expect((await createAccountStore(db).listAccounts({ limit: 1 })).length).toBe(1);
    } finally {
      await db.close();
    }
  } finally {
    other.exec("ROLLBACK");
  }
});
