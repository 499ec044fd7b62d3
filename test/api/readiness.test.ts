import fs from "node:fs/promises";
import http from "node:http";
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

it("reports unready while the usage journal cannot be written (every call would be refused), and ready once it can", async () => {
  // The journal's directory replaced by a file: no line can be written there (a full disk alike).
  const journal = path.join(server.dataDir, "metering-journal");
  const aside = `${journal}.aside`;
  await fs.rename(journal, aside);
  await fs.writeFile(journal, "not a directory");
  try {
    const down = await fetch(`${server.httpUrl}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: "unavailable", checks: { database: "ok", usage_journal: "failing" } });
  } finally {
    await fs.rm(journal);
    await fs.rename(aside, journal);
  }
  const up = await fetch(`${server.httpUrl}/readyz`);
  expect(up.status).toBe(200);
  expect(await up.json()).toMatchObject({ status: "ready", checks: { usage_journal: "ok" } });
  // The probe leaves nothing behind in the journal's directory.
  expect((await fs.readdir(journal)).filter((name) => name.endsWith(".probe"))).toEqual([]);
});

it("names shutting down as the failing check (it was 503 with every check ok)", async () => {
  const other = await startTestServer();
  const agent = new http.Agent({ keepAlive: true });
  const get = (p: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
    http.get(`${other.httpUrl}${p}`, { agent }, (response) => {
      let body = "";
      response.on("data", (chunk) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, body }));
    }).on("error", reject);
  });
  expect((await get("/readyz")).status).toBe(200);
  const closing = other.close();
  // On the connection opened before the shutdown began.
  const draining = await get("/readyz");
  agent.destroy();
  await closing;
  expect(draining.status).toBe(503);
  expect(JSON.parse(draining.body)).toMatchObject({ status: "unavailable", checks: { database: "ok", serving: "failing" } });
});

// Found by an audit (session 52): with every compute worker dead and its replacement failing to
// start, every call failed while /readyz said ready.
it("names the compute workers while none runs", async () => {
  const other = await startTestServer({ env: { WORKER_THREADS: "1" } });
  try {
    const up = await fetch(`${other.httpUrl}/readyz`);
    expect(up.status).toBe(200);
    expect(await up.json()).toMatchObject({ checks: { compute_workers: "ok" } });
    // What the pool reports with no worker running (test/threads/worker-pool.test.ts makes that
    // happen with real threads); the server has none to kill from here.
    other.ctx.computeWorkersLive = () => 0;
    const down = await fetch(`${other.httpUrl}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: "unavailable", checks: { database: "ok", compute_workers: "failing" } });
  } finally {
    await other.close();
  }
});
