/**
 * Throughput and latency of POST /v1/moderate (one text item, full path: auth, limits,
 * signing, metering, classifier) against a bare fastify echo of the same JSON, in one run.
 * Each server runs in its own process; autocannon (or wrk) drives them from this one.
 *
 *   npm run bench                      # embedded defaults (SQLite, in-memory limiter)
 *   BENCH_LOAD=wrk npm run bench       # wrk instead of autocannon (apt-get install wrk)
 *   BENCH_REDIS=1 npm run bench        # also with REDIS_URL (shared limiter) for comparison
 *   BENCH_CONNECT=1 npm run bench      # also the same call as Connect unary (JSON, HTTP/1.1)
 *   BENCH_NO_WORKERS=1 npm run bench   # also with WORKER_THREADS=0 (all on the event loop)
 *   BENCH_LOG_INFO=1 npm run bench     # also with LOG_LEVEL=info: one request-log line per request
 *   BENCH_SECONDS=10 BENCH_ROUNDS=5 npm run bench
 *   BENCH_CASCADE=0 npm run bench      # without the cascade figures (bench/cascade.ts); =only: those alone
 *   BENCH_BASELINE=/work/main npm run bench   # also that checkout's service (or several, comma-separated), rounds alternating with this one's
 *   BENCH_CPU_PROF=/tmp/prof npm run bench    # the services run under --cpu-prof (a profile per thread there)
 *   BENCH_RATE=500 npm run bench       # a fixed offered load (autocannon only): compare CPU per request, not req/s
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { hasWrk, useAutocannon, useWrk } from "./support/load-generators.js";
import { benchDataDir, cpuMicros, freePort, spawnNode, stop } from "./support/spawn-service.js";
import { runCascadeBench } from "./cascade.js";

if (process.env.BENCH_CASCADE === "only") {
  await runCascadeBench();
  process.exit(0);
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const BODY = JSON.stringify({
  input: [{ type: "text", text: "Thanks for the quick reply, see you at the meeting tomorrow. I think the plan is good." }],
});

interface Figures {
  name: string; rps: number; p50: number; p99: number; errors: number; non2xx: number;
  /** Server CPU per request, all threads, and the event loop's (main thread's) share, in µs. */
  cpuPerRequest: number; mainCpuPerRequest: number;
  /** autocannon's own CPU per request (it runs in this process), in µs; undefined for wrk. */
  loadCpuPerRequest: number | undefined;
}

// BENCH_LOAD=autocannon (default) | wrk (a C load generator, to cross-check the figures).
const LOAD = process.env.BENCH_LOAD ?? "autocannon";
// On a shared machine req/s swings with the other load; CPU per request at a fixed rate below
// saturation swings less, so a paired comparison of two checkouts can use it instead.
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
if (RATE !== undefined && LOAD !== "autocannon") throw new Error("BENCH_RATE needs autocannon");
if (LOAD !== "wrk" && LOAD !== "autocannon") throw new Error(`BENCH_LOAD must be wrk or autocannon; got "${LOAD}"`);
if (LOAD === "wrk" && !(await hasWrk())) throw new Error("BENCH_LOAD=wrk needs wrk: apt-get install wrk");
const generate = LOAD === "wrk" ? useWrk : useAutocannon;

/** Drives `url` on the server process `pid`; also reports that process's CPU time per request. */
async function drive(name: string, url: string, headers: Record<string, string>, pid: number): Promise<Figures> {
  const spec = { url, headers: { "content-type": "application/json", ...headers }, body: BODY, connections: CONNECTIONS, rate: RATE };
  await generate({ ...spec, seconds: 2 }); // warm-up: JIT, caches, model pages
  const [cpuBefore, mainBefore, loadBefore] = [await cpuMicros(pid), await cpuMicros(pid, pid), process.cpuUsage()];
  const result = await generate({ ...spec, seconds: SECONDS });
  const load = process.cpuUsage(loadBefore);
  const requests = Math.max(1, result.requests);
  const cpuPerRequest = (await cpuMicros(pid) - cpuBefore) / requests;
  const mainCpuPerRequest = (await cpuMicros(pid, pid) - mainBefore) / requests;
  const loadCpuPerRequest = LOAD === "autocannon" ? (load.user + load.system) / requests : undefined;
  return { name, rps: result.rps, p50: result.p50, p99: result.p99, errors: result.errors, non2xx: result.non2xx, cpuPerRequest, mainCpuPerRequest, loadCpuPerRequest };
}

/** The spec's JSON route; Connect unary takes the same JSON body (proto field names) at the RPC's path. */
const JSON_ROUTE = "/v1/moderate";
const CONNECT_ROUTE = "/moderation.v1.ModerationService/Moderate";

// A paired comparison: another checkout's service (its own code, this run's load and echo), and
// optional CPU profiles of every service thread, written when the service exits.
const BASELINES = (process.env.BENCH_BASELINE ?? "").split(",").filter(Boolean).map((dir) => path.resolve(dir));
const CPU_PROF = process.env.BENCH_CPU_PROF ? path.resolve(process.env.BENCH_CPU_PROF) : undefined;
let profileRuns = 0;

async function benchService(name: string, extraEnv: Record<string, string>, route = JSON_ROUTE, cwd?: string): Promise<Figures> {
  const { dataDir, key } = await benchDataDir("moderation-bench-", cwd);

  const [port, grpcPort] = [await freePort(), await freePort()];
  const nodeFlags = CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.join(CPU_PROF, `${++profileRuns}-${name.replace(/[^a-z0-9]+/gi, "-")}`)}`] : [];
  const env = { PORT: String(port), GRPC_PORT: String(grpcPort), HOST: "127.0.0.1", DATA_DIR: dataDir, ...extraEnv };
  const child = await spawnNode("src/main.ts", env, `http://127.0.0.1:${port}/healthz`, { cwd, nodeFlags });
  try {
    const figures = await drive(name, `http://127.0.0.1:${port}${route}`, { "x-api-key": key }, child.pid!);
    return figures;
  } finally {
    await stop(child);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

async function benchEcho(): Promise<Figures> {
  const port = await freePort();
  const child = await spawnNode("bench/echo-server.ts", { PORT: String(port) }, `http://127.0.0.1:${port}/healthz`);
  try {
    return await drive("bare fastify echo", `http://127.0.0.1:${port}/v1/moderate`, {}, child.pid!);
  } finally {
    await stop(child);
  }
}

// Several alternating rounds, reporting each configuration's median round: on a 2-core machine
// shared with the load generator, one unlucky round otherwise decides the ratio.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const configurations: Array<[string, () => Promise<Figures>]> = [
  ["bare fastify echo", benchEcho],
  ["moderation, embedded defaults", () => benchService("moderation, embedded defaults", {})],
  ...BASELINES.map((dir): [string, () => Promise<Figures>] => [`baseline ${path.basename(dir)}`, () => benchService(`baseline ${path.basename(dir)}`, {}, JSON_ROUTE, dir)]),
  // WORKER_THREADS=0: classification and signing on the event loop, for comparison.
  ...(process.env.BENCH_NO_WORKERS ? [["moderation, WORKER_THREADS=0", () => benchService("moderation, WORKER_THREADS=0", { WORKER_THREADS: "0" })] as [string, () => Promise<Figures>]] : []),
  // The bench's services log at warn (spawn-service.ts); this row pays for the request log (LOG_LEVEL=info, the default).
  ...(process.env.BENCH_LOG_INFO
    ? [["moderation, LOG_LEVEL=info", () => benchService("moderation, LOG_LEVEL=info", { LOG_LEVEL: "info" })] as [string, () => Promise<Figures>]]
    : []),
  ...(process.env.BENCH_CONNECT
    ? [["moderation, Connect (JSON)", () => benchService("moderation, Connect (JSON)", {}, CONNECT_ROUTE)] as [string, () => Promise<Figures>]]
    : []),
  ...(process.env.BENCH_REDIS
    ? [["moderation, REDIS_URL set", () => benchService("moderation, REDIS_URL set", { REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" })] as [string, () => Promise<Figures>]]
    : []),
];
const rounds = new Map<string, Figures[]>(configurations.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  // The echo first, then the services in turn, their order reversed every other round so that
  // neither side of a paired comparison always runs right after the echo.
  const [first, ...services] = configurations;
  for (const [name, run] of [first!, ...(round % 2 === 0 ? services : services.reverse())]) {
    const figures = await run();
    rounds.get(name)!.push(figures);
    console.error(`round ${round + 1}: ${name}: ${figures.rps.toFixed(0)} req/s, ${figures.cpuPerRequest.toFixed(0)} µs CPU/req (load ${os.loadavg()[0]!.toFixed(2)})`);
  }
}
const median = (figures: Figures[]) => [...figures].sort((a, b) => a.rps - b.rps)[Math.floor(figures.length / 2)]!;
const [echo, ...runs] = configurations.map(([name]) => median(rounds.get(name)!)) as [Figures, ...Figures[]];

const row = (f: Figures) =>
  `${f.name.padEnd(34)} ${f.rps.toFixed(0).padStart(8)} req/s  p50 ${f.p50.toFixed(1).padStart(5)} ms  p99 ${f.p99.toFixed(1).padStart(5)} ms  ` +
  `${(f.rps / echo.rps * 100).toFixed(1).padStart(5)}% of echo  server CPU ${f.cpuPerRequest.toFixed(0).padStart(4)} µs/req ` +
  `(event loop ${f.mainCpuPerRequest.toFixed(0)})  errors ${f.errors} non-2xx ${f.non2xx}`;
console.log(`\nload average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log(`\n${LOAD}, ${CONNECTIONS} connections${RATE ? `, ${RATE} requests/s offered` : ""}, ${SECONDS}s per run, one 90-character text item per request, median of ${ROUNDS} alternating rounds\n`);
console.log(row(echo));
for (const f of runs) console.log(row(f));

// The median rounds above may come from different rounds; a round's own ratio compares a
// service with the echo measured minutes apart at most, under the same load.
console.log("\neach round's share of that round's echo (median of these):");
const echoRounds = rounds.get(configurations[0]![0])!;
for (const [name] of configurations.slice(1)) {
  const shares = rounds.get(name)!.map((f, i) => (f.rps / echoRounds[i]!.rps) * 100);
  const mid = [...shares].sort((a, b) => a - b)[Math.floor(shares.length / 2)]!;
  console.log(`${name.padEnd(34)} ${shares.map((x) => `${x.toFixed(1)}%`).join("  ")}   median ${mid.toFixed(1)}%`);
}
console.log("\ntargets: >= 25% of echo throughput, p99 <= 15 ms");

// The load generator shares the cores, so server + generator CPU per request bounds throughput
// whatever the overlap: this says whether a shortfall is CPU cost or idle time.
const cores = os.availableParallelism();
console.log(`\nCPU ceiling on ${cores} cores (server + load generator CPU per request; measured req/s as a share of it):`);
for (const f of [echo, ...runs]) {
  if (f.loadCpuPerRequest === undefined) continue;
  const ceiling = (cores * 1e6) / (f.cpuPerRequest + f.loadCpuPerRequest);
  console.log(`${f.name.padEnd(34)} load generator ${f.loadCpuPerRequest.toFixed(0).padStart(3)} µs/req  ceiling ${ceiling.toFixed(0).padStart(6)} req/s  reached ${(f.rps / ceiling * 100).toFixed(0)}%`);
}

if (process.env.BENCH_CASCADE !== "0") await runCascadeBench();
