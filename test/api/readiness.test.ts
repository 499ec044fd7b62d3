import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Database } from "../../src/storage/database.js";
import { openDatabase } from "../../src/storage/open-database.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// /healthz is liveness (the process answers); /readyz is readiness (its database answers too).

let server: TestServer;
let dir: string;
let db: Database;
let databaseDown = false;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "moderation-readiness-"));
  db = await openDatabase({ databaseUrl: undefined, dataDir: dir });
  const flaky: Database = {
    ...db,
    query: (sql, params) => (databaseDown ? Promise.reject(new Error("connection refused")) : db.query(sql, params)),
  };
  server = await startTestServer({ overrides: { db: flaky } });
});
afterAll(async () => {
  await server?.close();
  await db?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

it("reports unready (503) while the database fails, and ready again once it answers", async () => {
  databaseDown = true;
  try {
    const down = await fetch(`${server.httpUrl}/readyz`);
    expect(down.status).toBe(503);
    const body = (await down.json()) as { status: string; checks: Record<string, string> };
    expect(body).toMatchObject({ status: "unavailable", checks: { database: "failing" } });
    expect(JSON.stringify(body)).not.toContain("connection refused");
    // Liveness does not depend on the database.
    const live = await fetch(`${server.httpUrl}/healthz`);
    expect(live.status).toBe(200);
  } finally {
    databaseDown = false;
  }
  const up = await fetch(`${server.httpUrl}/readyz`);
  expect(up.status).toBe(200);
  expect(await up.json()).toMatchObject({ status: "ready", checks: { database: "ok" } });
});
