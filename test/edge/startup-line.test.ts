import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";

it("names the metrics listener on its stdout line, so METRICS_PORT=0's chosen port can be found (it was only in the log)", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "moderation-startup-line-"));
  const child = spawn(process.execPath, ["--import", "./src/boot/ts-loader.mjs", "src/main.ts"], {
    env: { PATH: process.env.PATH ?? "", PORT: "0", GRPC_PORT: "0", METRICS_PORT: "0", DATA_DIR: dir, IMAGE_MODEL_LOAD: "lazy", LOG_LEVEL: "silent" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("\n")) resolve(out.split("\n")[0]!);
      });
      child.once("exit", (code) => reject(new Error(`exited ${code} before listening: ${out}`)));
    });
    const match = /^moderation service listening: HTTP\/1\.1 (http:\S+) {2}gRPC \(h2c\) (http:\S+) {2}metrics (http:\S+\/metrics)$/.exec(line);
    expect(match, line).not.toBeNull();
    const response = await fetch(match![3]!);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/^# HELP moderation_/m);
    // Not on the API listener when it has one of its own.
    expect((await fetch(`${match![1]}/metrics`)).status).toBe(404);
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

it("exits 2 with one line when the store was migrated by a newer version, instead of serving on it", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "moderation-newer-store-"));
  try {
    const { createSqliteDatabase } = await import("../../src/storage/sqlite-database.js");
    const { migrate } = await import("../../src/storage/migrate.js");
    const db = createSqliteDatabase(path.join(dir, "moderation.sqlite"));
    await migrate(db);
    await db.execute(`INSERT INTO schema_migrations (id, applied_at) VALUES ($1, $2)`, ["29991231-0000-from-the-future", 1]);
    await db.close();
    const child = spawn(process.execPath, ["--import", "./src/boot/ts-loader.mjs", "src/main.ts"], {
      env: { PATH: process.env.PATH ?? "", PORT: "0", GRPC_PORT: "0", DATA_DIR: dir, IMAGE_MODEL_LOAD: "lazy", LOG_LEVEL: "silent" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(err).toMatch(/^storage error: the database was migrated by a newer version of this service \(migration 29991231-0000-from-the-future,/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
