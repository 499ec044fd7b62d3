/**
 * How long one maximal request holds the service's event loop: ten images of about 4.8 MB each
 * (a 65 MB JSON body, the largest the limits allow). While the loop is held, every other caller of
 * the process waits, however small its request. Figures per configuration (median of rounds):
 * the longest event-loop delay seen during the request (prom-client's
 * nodejs_eventloop_lag_max_seconds, scraped before and after: each scrape starts a new window),
 * the request's latency, and the main thread's CPU for it.
 *
 *   npm run bench:large-bodies
 *   BENCH_BASELINE=/work/other-checkout npm run bench:large-bodies   # paired, rounds alternating
 *   BENCH_ROUNDS=7 npm run bench:large-bodies
 *   BENCH_PROTOCOL=connect npm run bench:large-bodies              # the same call as Connect binary protobuf
 */
import fs from "node:fs/promises";
import os from "node:os";
import { create, toBinary } from "@bufbuild/protobuf";
import sharp from "sharp";
import { ModerateRequestSchema } from "../gen/moderation/v1/moderation_pb.js";
import { median, pairedRounds } from "./support/paired-rounds.js";
import { benchDataDir, cpuMicros, freePort, spawnNode, stop } from "./support/spawn-service.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/** Noise does not compress: a 1270² RGB PNG stored without compression is about 4.8 MB, under the 5 MiB limit. */
async function noisePng(seed: number): Promise<Buffer> {
  const side = 1270;
  const raw = Buffer.alloc(side * side * 3);
  let s = seed;
  for (let i = 0; i < raw.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    raw[i] = s >>> 24;
  }
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
}

const images = await Promise.all(Array.from({ length: 10 }, (_, i) => noisePng(i + 1)));
const ITEMS = images.map((png) => ({ type: "image", base64: `data:image/png;base64,${png.toString("base64")}` }));
/** The same call as JSON on POST /v1/moderate and as Connect binary protobuf (BENCH_PROTOCOL=connect). */
const PROTOCOL = process.env.BENCH_PROTOCOL ?? "json";
const BODY: Buffer<ArrayBuffer> = PROTOCOL === "connect"
  ? Buffer.from(toBinary(ModerateRequestSchema, create(ModerateRequestSchema, { input: ITEMS })))
  : Buffer.from(JSON.stringify({ input: ITEMS }));
const [PATH, CONTENT_TYPE] = PROTOCOL === "connect" ? ["/moderation.v1.ModerationService/Moderate", "application/proto"] : ["/v1/moderate", "application/json"];

interface Round { loopMaxMs: number; latencyMs: number; mainCpuMs: number }

async function lagMaxMs(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("nodejs_eventloop_lag_max_seconds "));
  return Number(line?.split(" ")[1]) * 1000;
}

/** One service process: a warm-up request, then `requests` measured ones, one at a time. */
async function measure(cwd: string | undefined, requests: number): Promise<Round[]> {
  const { dataDir, key } = await benchDataDir("moderation-bench-large-");
  const [port, grpcPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${port}`;
  const child = await spawnNode("src/main.ts", { PORT: String(port), GRPC_PORT: String(grpcPort), HOST: "127.0.0.1", DATA_DIR: dataDir }, `${base}/healthz`, { cwd });
  const send = async () => {
    const response = await fetch(`${base}${PATH}`, { method: "POST", headers: { "content-type": CONTENT_TYPE, "x-api-key": key }, body: BODY });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${text.slice(0, 200)}`);
  };
  try {
    await send();
    const rounds: Round[] = [];
    for (let i = 0; i < requests; i++) {
      await lagMaxMs(base);
      const cpuBefore = await cpuMicros(child.pid!, child.pid!);
      const start = performance.now();
      await send();
      const latencyMs = performance.now() - start;
      const mainCpuMs = (await cpuMicros(child.pid!, child.pid!) - cpuBefore) / 1000;
      rounds.push({ loopMaxMs: await lagMaxMs(base), latencyMs, mainCpuMs });
    }
    return rounds;
  } finally {
    await stop(child);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

// A few requests per process and round.
const paired = await pairedRounds(ROUNDS, (cwd) => measure(cwd, 3), (round, name, rounds) =>
  console.error(`round ${round}: ${name}: loop held ${rounds.map((r) => r.loopMaxMs.toFixed(0)).join(", ")} ms (load ${os.loadavg()[0]!.toFixed(2)})`));
const results = new Map([...paired].map(([name, rounds]) => [name, rounds.flat()]));
const names = [...results.keys()];

console.log(`\nnode ${process.version}, ${os.availableParallelism()} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log(`one POST ${PATH} (${CONTENT_TYPE}) of ten ${(images[0]!.length / 1e6).toFixed(1)} MB PNG images (${(BODY.length / 1e6).toFixed(1)} MB), ${ROUNDS * 3} requests per configuration, medians:\n`);
const first = median(results.get(names[0]!)!.map((r) => r.loopMaxMs));
for (const name of names) {
  const rounds = results.get(name)!;
  const held = median(rounds.map((r) => r.loopMaxMs));
  const ratio = name === names[0] ? "" : `  (this checkout holds it ${(first / held).toFixed(2)}x as long)`;
  console.log(`${name.padEnd(28)} event loop held at most ${held.toFixed(0).padStart(4)} ms  latency ${median(rounds.map((r) => r.latencyMs)).toFixed(0).padStart(5)} ms  main-thread CPU ${median(rounds.map((r) => r.mainCpuMs)).toFixed(0).padStart(4)} ms${ratio}`);
}
