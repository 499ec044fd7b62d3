import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSqliteDatabase } from "../../src/storage/sqlite-database.js";

// The embedded store's change token (what the caller caches clear on) is read from SQLite at most
// every couple of milliseconds; these pin down what that may and may not delay.
describe("SQLite change token", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
  });
  const freshFile = async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "change-token-"));
    dirs.push(dir);
    return path.join(dir, "store.db");
  };

  it("changes at once for a write in this process, on another connection too", async () => {
    const file = await freshFile();
    const [here, there] = [createSqliteDatabase(file), createSqliteDatabase(file)];
    try {
      await here.execute("CREATE TABLE t (a INTEGER)");
      const before = here.changeToken!();
      expect(here.changeToken!()).toBe(before); // asked again at once: nothing changed
      await there.execute("INSERT INTO t (a) VALUES (1)");
      expect(here.changeToken!()).not.toBe(before);
    } finally {
      await here.close();
      await there.close();
    }
  });

  it("changes for another process's commit once a few milliseconds have passed, and not for nothing", async () => {
    const file = await freshFile();
    const db = createSqliteDatabase(file);
    try {
      await db.execute("CREATE TABLE t (a INTEGER)");
      const before = db.changeToken!();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(db.changeToken!()).toBe(before); // read again from SQLite: still the same
      // Another process commits (as modctl does), with SQLite itself, not through this module.
      const script = `const D = require("better-sqlite3"); const d = new D(${JSON.stringify(file)}); d.prepare("INSERT INTO t (a) VALUES (2)").run(); d.close();`;
      const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "ignore", "inherit"] });
      expect(await new Promise((resolve) => child.once("exit", resolve))).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(db.changeToken!()).not.toBe(before);
    } finally {
      await db.close();
    }
  });
});
