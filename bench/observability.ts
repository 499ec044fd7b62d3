/**
 * What the request observation (src/observability: request id, X-Request-Id header, request
 * metrics, one request-log line) adds to each request, measured in process: the same trivial
 * route on two fastify instances, one with registerRequestObservation and the service's logger
 * at info writing to /dev/null, one without, driven alternately through fastify's inject. Prints
 * CPU µs per request of each and the difference; `npm run bench` gives the end-to-end figure.
 *
 *   npx tsx bench/observability.ts            # BENCH_REQUESTS=20000 BENCH_ROUNDS=5
 */
import fastify, { type FastifyInstance } from "fastify";
import { bufferedDestination, createLogger } from "../src/base/logger.js";
import { createMetrics } from "../src/observability/metrics.js";
import { registerRequestObservation } from "../src/observability/request-hooks.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

async function build(observed: boolean): Promise<FastifyInstance> {
  const app = fastify({ logger: false });
  if (observed) registerRequestObservation(app, { log: createLogger("info", bufferedDestination("/dev/null")), metrics: createMetrics() });
  app.post("/v1/moderate", async () => ({ ok: true }));
  await app.ready();
  return app;
}

async function cpuPerRequest(app: FastifyInstance): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) {
    await app.inject({ method: "POST", url: "/v1/moderate", headers: { "content-type": "application/json", "x-api-key": "mk_bench" }, payload: "{}" });
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / REQUESTS;
}

const plain = await build(false);
const observed = await build(true);
await cpuPerRequest(plain); // warm-up: JIT
await cpuPerRequest(observed);
const results: Array<{ plain: number; observed: number }> = [];
for (let round = 0; round < ROUNDS; round++) results.push({ plain: await cpuPerRequest(plain), observed: await cpuPerRequest(observed) });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const differences = results.map((r) => r.observed - r.plain);
console.log(`${REQUESTS} injected requests per run, ${ROUNDS} alternating rounds (CPU µs per request)`);
for (const [i, r] of results.entries()) console.log(`round ${i + 1}: without ${r.plain.toFixed(1)}  with ${r.observed.toFixed(1)}  added ${(r.observed - r.plain).toFixed(1)}`);
console.log(`median added by request observation: ${median(differences).toFixed(1)} µs per request`);
await plain.close();
await observed.close();
