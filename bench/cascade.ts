/**
 * The cascade's cost: the share of text items TEXT_PROVIDER_MODE=cascade sends to the guard model,
 * and the latency it adds, with a fake Llama Guard provider that answers after a fixed delay.
 * One service process; each text is sent once with text_provider_mode "off" (the embedded-only
 * path) and once with "cascade". Texts: a fixed sample of the shared datasets (every dataset
 * alike, by hash), so the share reflects a mix of benign and harmful text.
 *
 *   npm run bench                                   # runs this after the throughput table
 *   BENCH_CASCADE=only npm run bench                # this part alone
 *   BENCH_PROVIDER_MS=80 BENCH_CASCADE_PER_DATASET=30 npm run bench
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { existsSync } from "node:fs";
import { createAccountStore } from "../src/accounts/account-store.js";
import { openDatabase } from "../src/storage/open-database.js";
import { datasetsRoot } from "../src/training/datasets/files.js";
import { readAll } from "../src/training/datasets/index.js";
import { hashString } from "../src/training/prng.js";
import { freePort, spawnNode, stop } from "./support/spawn-service.js";

const PROVIDER_MS = Number(process.env.BENCH_PROVIDER_MS ?? 50);
const PER_DATASET = Number(process.env.BENCH_CASCADE_PER_DATASET ?? 16);
const CONCURRENCY = 8;

/** Up to PER_DATASET texts of each dataset, the same ones every run (lowest hashes), at most 2,000 characters. */
function sampleTexts(): string[] | undefined {
  const root = datasetsRoot();
  if (!existsSync(root)) return undefined;
  const byDataset = new Map<string, string[]>();
  for (const example of readAll(root)) {
    if (example.text.length > 2_000) continue;
    const list = byDataset.get(example.dataset) ?? [];
    list.push(example.text);
    byDataset.set(example.dataset, list);
  }
  return [...byDataset.values()].flatMap((texts) =>
    [...new Set(texts)].sort((a, b) => hashString(a) - hashString(b)).slice(0, PER_DATASET));
}

/** A chat-completions server answering as Llama Guard ("safe") after PROVIDER_MS. */
async function startFakeLlamaGuard() {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on("end", () => setTimeout(() => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: "c", object: "chat.completion", model: "llama-guard", choices: [{ index: 0, message: { role: "assistant", content: "safe" }, finish_reason: "stop" }] }));
    }, PROVIDER_MS));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get requests() { return requests; },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

export async function runCascadeBench(): Promise<void> {
  const texts = sampleTexts();
  if (!texts) {
    console.log(`\ncascade: skipped (no datasets at ${datasetsRoot()})`);
    return;
  }
  const provider = await startFakeLlamaGuard();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "moderation-bench-cascade-"));
  const db = await openDatabase({ databaseUrl: undefined, dataDir });
  const account = await createAccountStore(db).createAccount({ email: `bench-${Date.now()}@example.test`, plan: "enterprise", rpm: 100_000_000 });
  const { key } = await createAccountStore(db).createKey(account.id, "bench");
  await db.close();
  const [port, grpcPort] = [await freePort(), await freePort()];
  const child = await spawnNode("src/main.ts", {
    PORT: String(port), GRPC_PORT: String(grpcPort), HOST: "127.0.0.1", DATA_DIR: dataDir,
    TEXT_PROVIDER: "llama-guard", TEXT_PROVIDER_BASE_URL: provider.baseUrl, TEXT_PROVIDER_MODEL: "llama-guard", TEXT_PROVIDER_MODE: "cascade",
  }, `http://127.0.0.1:${port}/healthz`);

  const url = `http://127.0.0.1:${port}/v1/moderate`;
  /** Every text once, CONCURRENCY at a time; each request's latency in ms. */
  /** Every category score the embedded model gave each text, from the "off" pass. */
  const scores: number[][] = [];
  /** Cascade latencies of the items the provider saw, and of those it did not. */
  const split = { sent: [] as number[], kept: [] as number[] };
  const pass = async (mode: "off" | "cascade") => {
    const latencies: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next < texts.length) {
        const text = texts[next++]!;
        const started = performance.now();
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": key },
          body: JSON.stringify({ input: [{ type: "text", text }], text_provider_mode: mode }),
        });
        const answer = (await response.json()) as { results: Array<{ categories: Record<string, { score: number }>; second_opinion?: unknown }> };
        if (!response.ok) throw new Error(`${mode}: HTTP ${response.status}`);
        const ms = performance.now() - started;
        if (mode === "off") scores.push(Object.values(answer.results[0]!.categories).map((c) => c.score));
        else (answer.results[0]!.second_opinion ? split.sent : split.kept).push(ms);
        latencies.push(ms);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return latencies.sort((a, b) => a - b);
  };
  try {
    await pass("off"); // warm-up
    scores.length = 0;
    const off = await pass("off");
    const before = provider.requests;
    const cascade = await pass("cascade");
    const sent = provider.requests - before;
    const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
    const line = (name: string, l: number[]) => `${name.padEnd(30)} mean ${mean(l).toFixed(1).padStart(6)} ms  p50 ${percentile(l, 0.5).toFixed(1).padStart(6)} ms  p99 ${percentile(l, 0.99).toFixed(1).padStart(6)} ms`;
    console.log(`\ncascade (TEXT_PROVIDER_MODE=cascade, band [0.2, 0.8)), fake Llama Guard answering in ${PROVIDER_MS} ms, ${texts.length} dataset texts (${PER_DATASET} per dataset), ${CONCURRENCY} at a time`);
    console.log(`items sent to the provider: ${sent} of ${texts.length} (${((sent / texts.length) * 100).toFixed(1)}%)`);
    const shareFor = (low: number, high: number) => scores.filter((list) => list.some((s) => s >= low && s < high)).length / scores.length;
    console.log(`share other score bands would send (language not counted): ${[[0.3, 0.7], [0.25, 0.75], [0.2, 0.8], [0.1, 0.9]].map(([l, h]) => `[${l}, ${h}) ${(shareFor(l!, h!) * 100).toFixed(1)}%`).join(", ")}`);
    console.log(line("embedded only (mode off)", off));
    console.log(line("cascade", cascade));
    console.log(line("  items not sent", split.kept.sort((a, b) => a - b)));
    console.log(line("  items sent", split.sent.sort((a, b) => a - b)));
    console.log(`added latency: mean ${(mean(cascade) - mean(off)).toFixed(1)} ms per item overall (${((mean(cascade) - mean(off)) / Math.max(sent / texts.length, 1e-9)).toFixed(1)} ms per item sent); p50 ${(percentile(cascade, 0.5) - percentile(off, 0.5)).toFixed(1)} ms, p99 ${(percentile(cascade, 0.99) - percentile(off, 0.99)).toFixed(1)} ms`);
  } finally {
    await stop(child);
    await provider.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
