/**
 * How long one account's small request waits while another account floods the service with
 * expensive ones: account A sends eight requests at once, each of ten 10,000-character texts of
 * random symbols (the slowest text per character measured); 50 ms later account B sends one
 * short text, and account C, whose calls are answered under a policy of its own (on the event
 * loop, through the compute workers' classify jobs), does the same. Figures per configuration
 * (median of rounds): B's and C's latency during the flood, B's latency alone, and the time until
 * A's last answer (the flood's own throughput must not drop).
 * The compute workers are where the wait happens (WORKER_THREADS, src/threads/lane-queue.ts).
 *
 *   npm run bench:fair-share
 *   BENCH_BASELINE=/work/other-checkout npm run bench:fair-share   # paired, rounds alternating
 *   BENCH_ROUNDS=5 npm run bench:fair-share
 */
import fs from "node:fs/promises";
import os from "node:os";
import { median, pairedRounds } from "./support/paired-rounds.js";
import { benchAccounts, freePort, spawnNode, stop } from "./support/spawn-service.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FLOOD_REQUESTS = 8;

/** Printable ASCII drawn by a fixed linear congruential generator: the same texts every run. */
function randomSymbols(seed: number, length: number): string {
  let s = seed;
  let text = "";
  for (let i = 0; i < length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    text += String.fromCharCode(32 + ((s >>> 16) % 95));
  }
  return text;
}

const floodBody = (request: number) =>
  JSON.stringify({ input: Array.from({ length: 10 }, (_, i) => ({ type: "text", text: randomSymbols(request * 10 + i + 1, 10_000) })) });
const SMALL_BODY = JSON.stringify({ input: [{ type: "text", text: "see you at the meeting tomorrow" }] });

/** A fresh DATA_DIR with three enterprise accounts whose limits the flood cannot reach, and a key of each. */
interface Round { smallDuringFloodMs: number; policyDuringFloodMs: number; smallAloneMs: number; floodMs: number }

async function measure(cwd: string | undefined): Promise<Round> {
  const { dataDir, keys } = await benchAccounts("moderation-bench-fair-", ["flood", "small", "policy"], cwd);
  const [floodKey, smallKey, policyKey] = keys as [string, string, string];
  const [port, grpcPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${port}`;
  const child = await spawnNode("src/main.ts", { PORT: String(port), GRPC_PORT: String(grpcPort), HOST: "127.0.0.1", DATA_DIR: dataDir }, `${base}/healthz`, { cwd });
  const send = async (key: string, body: string): Promise<number> => {
    const start = performance.now();
    const response = await fetch(`${base}/v1/moderate`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${text.slice(0, 200)}`);
    return performance.now() - start;
  };
  try {
    const policy = await fetch(`${base}/moderation.v1.PolicyService/UpdatePolicy`, {
      method: "POST", headers: { "content-type": "application/json", "x-api-key": policyKey }, body: JSON.stringify({ rules: { thresholds: { hate: 0.5 } } }),
    });
    if (policy.status !== 200) throw new Error(`UpdatePolicy: HTTP ${policy.status}`);
    await send(floodKey, floodBody(0)); // warm-up: JIT, model pages
    await send(policyKey, SMALL_BODY);
    const smallAloneMs = await send(smallKey, SMALL_BODY);
    const bodies = Array.from({ length: FLOOD_REQUESTS }, (_, i) => floodBody(i + 1));
    const start = performance.now();
    const flood = Promise.all(bodies.map((body) => send(floodKey, body)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [smallDuringFloodMs, policyDuringFloodMs] = await Promise.all([send(smallKey, SMALL_BODY), send(policyKey, SMALL_BODY)]);
    await flood;
    return { smallDuringFloodMs, policyDuringFloodMs, smallAloneMs, floodMs: performance.now() - start };
  } finally {
    await stop(child);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

const results = await pairedRounds(ROUNDS, measure, (round, name, figures) =>
  console.error(`round ${round}: ${name}: B ${figures.smallDuringFloodMs.toFixed(0)} ms and C ${figures.policyDuringFloodMs.toFixed(0)} ms during the flood, flood ${figures.floodMs.toFixed(0)} ms (load ${os.loadavg()[0]!.toFixed(2)})`));
const names = [...results.keys()];

console.log(`\nnode ${process.version}, ${os.availableParallelism()} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log(`account A: ${FLOOD_REQUESTS} requests at once of ten 10,000-character random texts; accounts B and C (C under a policy): one short text each 50 ms later; ${ROUNDS} rounds, medians:\n`);
const first = results.get(names[0]!)!;
for (const name of names) {
  const rounds = results.get(name)!;
  const during = median(rounds.map((r) => r.smallDuringFloodMs));
  const ratio = name === names[0] ? "" : `  (this checkout's B waits ${(median(first.map((r) => r.smallDuringFloodMs)) / during).toFixed(2)}x as long)`;
  console.log(`${name.padEnd(28)} B during the flood ${during.toFixed(0).padStart(5)} ms  C ${median(rounds.map((r) => r.policyDuringFloodMs)).toFixed(0).padStart(5)} ms  B alone ${median(rounds.map((r) => r.smallAloneMs)).toFixed(0).padStart(4)} ms  flood done in ${median(rounds.map((r) => r.floodMs)).toFixed(0).padStart(5)} ms${ratio}`);
}
