import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Database } from "../../src/storage/database.js";
import { openDatabase } from "../../src/storage/open-database.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { parseExposition, valueOf } from "./scrape.js";

// /readyz's 503 has an error code like every other refusal: X-Error-Code, the metrics' code label
// and the log line's code were empty ("the API error code (empty on success)").

let server: TestServer;
let dir: string;
let db: Database;
let databaseDown = false;
const lines: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "moderation-readyz-code-"));
  db = await openDatabase({ databaseUrl: undefined, dataDir: dir });
  const flaky: Database = { ...db, query: (sql, params) => (databaseDown ? Promise.reject(new Error("connection refused")) : db.query(sql, params)) };
  // Probes are logged at debug: captured there.
  const log = { error() {}, warn() {}, info() {}, debug: (line: Record<string, unknown>) => void lines.push(line) };
  server = await startTestServer({ overrides: { db: flaky, log: log as never } });
});
afterAll(async () => {
  await server?.close();
  await db?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

it("answers 503 with X-Error-Code service_unavailable, counted and logged with that code, its body as documented", async () => {
  databaseDown = true;
  let down: Response;
  try {
    down = await fetch(`${server.httpUrl}/readyz`, { headers: { "x-request-id": "probe-down" } });
  } finally {
    databaseDown = false;
  }
  expect(down.status).toBe(503);
  expect(down.headers.get("x-error-code")).toBe("service_unavailable");
  // The body stays the documented one (docs/api.md, Health): the checks, no error object.
  const body = (await down.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(["checks", "status"]);
  expect(body).toMatchObject({ status: "unavailable", checks: { database: "failing", usage_journal: "ok" } });
  const up = await fetch(`${server.httpUrl}/readyz`, { headers: { "x-request-id": "probe-up" } });
  expect(up.status).toBe(200);
  expect(up.headers.get("x-error-code")).toBeNull();

  const samples = parseExposition(await server.ctx.metrics.render());
  expect(valueOf(samples, "moderation_requests_total", { route: "/readyz", protocol: "http", status: "503", code: "service_unavailable" })).toBe(1);
  expect(valueOf(samples, "moderation_requests_total", { route: "/readyz", status: "503", code: "" })).toBe(0);
  expect(valueOf(samples, "moderation_requests_total", { route: "/readyz", status: "200", code: "" })).toBe(1);
  await expect.poll(() => lines.filter((line) => String(line.requestId).startsWith("probe-")).map((line) => [line.requestId, line.status, line.code])).toEqual([
    ["probe-down", 503, "service_unavailable"],
    ["probe-up", 200, undefined],
  ]);
});
