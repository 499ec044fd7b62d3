import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, expect, it } from "vitest";
import { createSqliteDatabase, execWhileBusy } from "../../src/storage/sqlite-database.js";

// Opening the embedded store while another process holds the fresh file's lock (a replica or
// modctl switching it to WAL at the same moment): the open waits within the busy timeout instead of
// failing at once with SQLITE_BUSY. The lock holder is a child process, since better-sqlite3 blocks
// this process's event loop while it waits. Where SQLite returns SQLITE_BUSY without waiting (two
// connections upgrading their locks at once), the store's own retry waits instead (execWhileBusy).

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A child that takes the file's exclusive lock, says so, holds it for `holdMs`, then lets go. */
function holdExclusiveLock(file: string, holdMs: number): Promise<() => Promise<void>> {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(${JSON.stringify(file)});
    db.exec("BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS held (x INTEGER);");
    process.stdout.write("locked\\n");
    setTimeout(() => { db.exec("COMMIT"); db.close(); }, ${holdMs});`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.stdout.once("data", () => resolve(() => exited));
  });
}

it("waits for a lock another process holds on a fresh store, then opens it in WAL mode", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "sqlite-open-locked-"));
  dirs.push(dir);
  const file = path.join(dir, "moderation.sqlite");
  const released = await holdExclusiveLock(file, 300);
  const started = Date.now();
  const db = createSqliteDatabase(file, { busyTimeoutMs: 5000 });
  try {
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    const [mode] = await db.query<{ journal_mode: string }>("PRAGMA journal_mode");
    expect(mode?.journal_mode).toBe("wal");
  } finally {
    await db.close();
    await released();
  }
});

/** better-sqlite3's error as it throws it for a lock SQLite would not wait on. */
const busy = (): Error => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });

it("retries the setup pragmas while SQLite answers SQLITE_BUSY without waiting, within the timeout", () => {
  const real = new BetterSqlite3(":memory:");
  let calls = 0;
  const flaky = { exec: (sql: string) => (++calls <= 3 ? (() => { throw busy(); })() : real.exec(sql)) } as Pick<BetterSqlite3.Database, "exec">;
  execWhileBusy(flaky, "PRAGMA foreign_keys = ON;", 1000);
  expect(calls).toBe(4);
  expect(real.prepare("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
  real.close();
});

it("gives up with SQLITE_BUSY once the timeout has passed, and never retries other errors", () => {
  let calls = 0;
  const alwaysBusy = { exec: () => { calls++; throw busy(); } } as unknown as Pick<BetterSqlite3.Database, "exec">;
  const started = Date.now();
  expect(() => execWhileBusy(alwaysBusy, "PRAGMA journal_mode = WAL;", 100)).toThrow(/database is locked/);
  expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  expect(calls).toBeGreaterThan(1);

  calls = 0;
  const broken = { exec: () => { calls++; throw Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR" }); } } as unknown as Pick<BetterSqlite3.Database, "exec">;
  expect(() => execWhileBusy(broken, "PRAGMA journal_mode = WAL;", 1000)).toThrow(/disk I\/O error/);
  expect(calls).toBe(1);
});
