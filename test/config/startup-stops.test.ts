import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHARED_REDIS_URL } from "../rate-limit/redis-test-support.js";
import { POSTGRES_URL } from "../support/test-server.js";

/**
 * Real starts of src/main.ts whose settings once let it exit 0 in silence, or exit 1 with a
 * driver's message naming no variable (found by an audit of configuration).
 */

const SECRET = "SECRETPW4711";
let dataDir = "";

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "moderation-startup-stops-"));
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function start(env: Record<string, string>, preload?: string) {
  const imports = ["--import", "./src/boot/ts-loader.mjs", ...(preload ? ["--import", pathToFileURL(preload).href] : [])];
  return spawnSync(process.execPath, [...imports, "src/main.ts"], {
    env: { PATH: process.env.PATH ?? "", PORT: "0", GRPC_PORT: "0", DATA_DIR: dataDir, IMAGE_MODEL_LOAD: "lazy", DATABASE_STARTUP_WAIT_MS: "0", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
}

/** POSTGRES_URL with a password (the test server trusts every connection) and `query` added. */
function postgresUrl(query: string): string {
  const url = new URL(POSTGRES_URL);
  url.password = SECRET;
  url.search = query;
  return url.href;
}

describe("start-up with a DATABASE_URL pg cannot use", () => {
  it("stops with exit code 2 naming DATABASE_URL on a port that is not a number (it exited 0, silent)", () => {
    const result = start({ DATABASE_URL: postgresUrl("?port=abc") });
    expect(result.stderr).toBe("configuration error: DATABASE_URL's port must be a whole number from 1 to 65535 (its value is not shown: it may hold a password).\n");
    expect(result.status).toBe(2);
    expect(result.stdout).not.toMatch(/listening/);
  });

  it("stops with exit code 2 naming DATABASE_URL when its sslrootcert file is missing (it was 1 and a bare ENOENT)", () => {
    const result = start({ DATABASE_URL: postgresUrl("?sslrootcert=/nonexistent/root.crt") });
    expect(result.stderr).toBe("configuration error: DATABASE_URL: cannot read /nonexistent/root.crt, the file its sslrootcert names (ENOENT).\n");
    expect(result.status).toBe(2);
  });

  it("stops with exit code 2 naming DATABASE_URL when its search_path names no schema (it was 1, 'no schema has been selected')", () => {
    const result = start({ DATABASE_URL: postgresUrl(`?options=${encodeURIComponent("-c search_path=no_such_schema_for_start_up")}`) });
    expect(result.stderr).toMatch(/^configuration error: DATABASE_URL: PostgreSQL refused the connection: no schema has been selected to create in$/m);
    expect(result.status).toBe(2);
    expect(result.stderr).not.toContain(SECRET);
  });

  it("exits 1 with a message, never 0 in silence, when start-up stalls with nothing left to wait for", () => {
    // A stand-in for any future stall: every pool check-out is dropped unanswered, as pg's own
    // synchronous throw inside its connect once left the start-up promise unsettled.
    const preload = path.join(dataDir, "stall-pool.mjs");
    const pgPath = path.resolve("node_modules/pg/lib/index.js");
    fs.writeFileSync(preload, `import pg from ${JSON.stringify(pathToFileURL(pgPath).href)};\npg.Pool.prototype.connect = () => new Promise(() => {});\n`);
    const result = start({ DATABASE_URL: postgresUrl("") }, preload);
    expect(result.stderr).toBe("failed to start: start-up stopped without an error, with nothing left to wait for\n");
    expect(result.status).toBe(1);
  });
});

describe("start-up with a REDIS_URL the client cannot read", () => {
  it.each([
    ["/abc", "Invalid pathname"],
    ["/1.5", "started; the limiter never worked"],
  ])("stops with exit code 2 naming REDIS_URL on the path %s (it was: %s)", (pathname) => {
    // Port 1: the check comes before any connection.
    const result = start({ REDIS_URL: `redis://:${SECRET}@127.0.0.1:1${pathname}` });
    expect(result.stderr).toBe("configuration error: REDIS_URL's path must be empty or a database index such as /0 (its value is not shown: it may hold a password).\n");
    expect(result.status).toBe(2);
  });

  it("stops with exit code 2 naming REDIS_URL when Redis refuses an index past its integers (it served the failure mode for good)", () => {
    // A decimal index passes the config; SELECT 100000000000000000000 is refused, selecting nothing.
    const result = start({ REDIS_URL: `${SHARED_REDIS_URL}/99999999999999999999` });
    expect(result.stderr).toMatch(/^configuration error: REDIS_URL: Redis refused the connection's set-up: ERR value is not an integer or out of range$/m);
    expect(result.status).toBe(2);
  });
});
