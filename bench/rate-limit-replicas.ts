/**
 * Three replicas of the service on this machine, sharing the local Redis and one embedded store,
 * take 1,000 concurrent requests for one Free account. Prints how many got through (must be exactly
 * 10) and the limiter's added latency per request, which each replica logs at debug level.
 *
 *   npm run bench:replicas [-- --requests 1000 --concurrency 100 --replicas 3]
 *
 * Not a test: it prints figures. It exits 1 if the count is not exactly the plan's limit. The replicas
 * get this process's environment, so RATE_LIMIT_TIMEOUT_MS / RATE_LIMIT_FAILURE_MODE / REDIS_URL apply.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { createClient } from "redis";
import { createAppContext } from "../src/app/app-context.js";
import { readConfig } from "../src/config/config.js";

const { values: args } = parseArgs({
  options: {
    requests: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "100" },
    replicas: { type: "string", default: "3" },
  },
});
const REQUESTS = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
const REPLICAS = Number(args.replicas);
const REDIS_URL = process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379";
const FREE_LIMIT = 10;

interface Replica {
  child: ChildProcess;
  httpUrl: string;
  /** Milliseconds each rate limit decision took inside this replica. */
  limiterMs: number[];
  exited: Promise<void>;
}

async function main(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "rate-limit-bench-"));
  const keyPrefix = `bench:rate-limit:${randomUUID()}:`;
  const env: Record<string, string> = {
    HOST: "127.0.0.1",
    PORT: "0",
    GRPC_PORT: "0",
    DATA_DIR: dataDir,
    REDIS_URL,
    RATE_LIMIT_KEY_PREFIX: keyPrefix,
    LOG_LEVEL: "debug",
  };
  const replicas: Replica[] = [];
  try {
    // Create the store, its signing key and the account once, before the replicas race to.
    const apiKey = await createFreeAccount(env);
    for (let i = 0; i < REPLICAS; i++) replicas.push(await startReplica(env));
    console.log(`${REPLICAS} replicas: ${replicas.map((r) => r.httpUrl).join("  ")}  (Redis ${REDIS_URL}, store ${dataDir})`);

    const started = performance.now();
    const results = await fire(replicas, apiKey);
    const elapsedMs = performance.now() - started;

    await Promise.all(replicas.map(stopReplica)); // flushes their logs
    const allowed = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429).length;
    // 503 is rate_limiter_unavailable: a check that outlived RATE_LIMIT_TIMEOUT_MS (fail-closed), refused.
    const unavailable = results.filter((r) => r.status === 503).length;
    const other = results.filter((r) => r.status !== 200 && r.status !== 429 && r.status !== 503);
    const limiterMs = replicas.flatMap((r) => r.limiterMs);

    console.log(`requests sent:          ${results.length} (concurrency ${CONCURRENCY}, ${elapsedMs.toFixed(0)} ms)`);
    console.log(`got through (200):      ${allowed}   (Free plan: ${FREE_LIMIT}/min)`);
    console.log(`rate limited (429):     ${limited}`);
    if (unavailable > 0) console.log(`limiter timed out (503): ${unavailable}   (checks slower than RATE_LIMIT_TIMEOUT_MS=${process.env["RATE_LIMIT_TIMEOUT_MS"] ?? "100"}; refused, per fail-closed)`);
    if (other.length > 0) console.log(`other:                  ${other.length} (${[...new Set(other.map((o) => o.status))].join(", ")})`);
    console.log(`per replica 200s:       ${replicas.map((r) => results.filter((x) => x.replica === r && x.status === 200).length).join(" / ")}`);
    console.log(`limiter added latency:  p50 ${quantile(limiterMs, 0.5).toFixed(2)} ms, p99 ${quantile(limiterMs, 0.99).toFixed(2)} ms, max ${Math.max(...limiterMs).toFixed(2)} ms  (${limiterMs.length} decisions, measured inside the replicas)`);
    const clientMs = results.map((r) => r.ms);
    console.log(`end-to-end per request: p50 ${quantile(clientMs, 0.5).toFixed(1)} ms, p99 ${quantile(clientMs, 0.99).toFixed(1)} ms  (client side, whole request)`);

    console.log(`machine load average:   ${os.loadavg().map((n) => n.toFixed(1)).join(" / ")} on ${os.cpus().length} cores (latency figures include waiting for CPU)`);
    if (elapsedMs >= 60_000) console.log("warning: the run took over a minute, so more than one window's worth may legitimately pass");
    if (allowed !== FREE_LIMIT || other.length > 0) {
      console.log(`FAIL: expected exactly ${FREE_LIMIT} through and only 200/429/503 statuses`);
      process.exitCode = 1;
    } else {
      console.log(`OK: exactly ${FREE_LIMIT} of ${REQUESTS} got through across ${REPLICAS} replicas`);
    }
  } finally {
    await Promise.all(replicas.map(stopReplica));
    await deleteKeys(keyPrefix).catch((error: unknown) => console.error("could not clean up Redis keys:", error));
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

async function createFreeAccount(env: Record<string, string>): Promise<string> {
  // Memory limiter here: this context only creates the account.
  const ctx = await createAppContext(readConfig({ ...env, REDIS_URL: "" }));
  try {
    const account = await ctx.accounts.createAccount({ email: `bench-${randomUUID()}@example.test`, plan: "free" });
    return (await ctx.accounts.createKey(account.id, "bench")).key;
  } finally {
    await ctx.close();
  }
}

function startReplica(env: Record<string, string>): Promise<Replica> {
  const child = spawn(process.execPath, ["--import", "./src/boot/ts-loader.mjs", "src/main.ts"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const limiterMs: number[] = [];
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`replica exited with ${code} before listening`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const listening = /listening: HTTP\/1\.1 (\S+)/.exec(line);
      if (listening?.[1]) resolve({ child, httpUrl: listening[1], limiterMs, exited });
      if (!line.startsWith("{")) return;
      try {
        const entry = JSON.parse(line) as { msg?: string; rateLimitMs?: number };
        if (entry.msg === "rate limit decision" && typeof entry.rateLimitMs === "number") limiterMs.push(entry.rateLimitMs);
      } catch {
        // Not a log line.
      }
    });
  });
}

async function stopReplica(replica: Replica): Promise<void> {
  if (replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill("SIGTERM");
  await replica.exited;
}

interface Result {
  replica: Replica;
  status: number;
  ms: number;
}

/** Round-robins REQUESTS over the replicas with CONCURRENCY in flight at once. */
async function fire(replicas: Replica[], apiKey: string): Promise<Result[]> {
  const results: Result[] = [];
  let next = 0;
  const body = JSON.stringify({ input: [{ type: "text", text: "hello from the bench" }] });
  const worker = async () => {
    while (next < REQUESTS) {
      const replica = replicas[next++ % replicas.length]!;
      const started = performance.now();
      const response = await fetch(`${replica.httpUrl}/v1/moderate`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": apiKey },
        body,
      });
      await response.arrayBuffer();
      results.push({ replica, status: response.status, ms: performance.now() - started });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return results;
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function deleteKeys(prefix: string): Promise<void> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*` })) if (keys.length > 0) await client.del(keys);
  } finally {
    client.destroy();
  }
}

await main();
