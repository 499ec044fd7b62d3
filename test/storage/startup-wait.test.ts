import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";
import { createSchema, dropSchema, POSTGRES_URL } from "../support/test-server.js";
import { pollUntil } from "../support/poll.js";

// A server started before its PostgreSQL (docker compose starts both at once) waits for it up to
// DATABASE_STARTUP_WAIT_MS; it exited 1 at the first refused connection.

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function unreachableDatabase(): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(POSTGRES_URL);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  cleanups.push(() => proxy.close());
  await proxy.cut();
  const schema = await createSchema();
  cleanups.push(() => dropSchema(schema));
  const url = new URL(POSTGRES_URL);
  url.port = String(proxy.port);
  url.hostname = "127.0.0.1";
  url.searchParams.set("options", `-c search_path=${schema}`);
  return { proxy, url: url.href };
}

function startServer(databaseUrl: string, waitMs: number): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "moderation-startup-wait-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const child = spawn(process.execPath, ["--import", "./src/boot/ts-loader.mjs", "src/main.ts"], {
    env: { PATH: process.env.PATH ?? "", PORT: "0", GRPC_PORT: "0", DATA_DIR: dir, DATABASE_URL: databaseUrl, DATABASE_STARTUP_WAIT_MS: String(waitMs), IMAGE_MODEL_LOAD: "lazy", WORKER_THREADS: "0", LOG_LEVEL: "warn" },
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  cleanups.push(() => void child.kill("SIGKILL"));
  return { child, output: () => output, exited };
}

describe("a start before the database is reachable", () => {
  it("waits for it, says so once, and serves once it comes", async () => {
    const { proxy, url } = await unreachableDatabase();
    const server = startServer(url, 60_000);
    let exitCode: number | null | undefined;
    void server.exited.then((code) => (exitCode = code));
    expect(await pollUntil(() => server.output().includes("waiting for it (DATABASE_STARTUP_WAIT_MS)"), 30_000, 50)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(exitCode).toBeUndefined();
    await proxy.restore();
    expect(await pollUntil(() => server.output().includes("moderation service listening"), 30_000, 50)).toBe(true);
    expect(server.output().match(/waiting for it/g)).toHaveLength(1);
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 90_000);

  it("with DATABASE_STARTUP_WAIT_MS=0 fails at once, exit code 1, as before", async () => {
    const { url } = await unreachableDatabase();
    const server = startServer(url, 0);
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/^failed to start: The database is unavailable\.$/m);
    expect(server.output()).not.toMatch(/waiting for it/);
  }, 60_000);
});
