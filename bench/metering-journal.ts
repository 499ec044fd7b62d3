/**
 * What durable metering costs per request: the meter's `record` (on the request path, before the
 * answer) and its flush to SQL (off the path), for the journal with each fsync policy, against a
 * baseline of the previous design (counts summed in memory, nothing durable until the flush), in
 * the same run on the same disk.
 *
 *   npm run bench:metering [-- --requests 20000 --rounds 5]
 *
 * Prints µs per request (median of the rounds). Not a test: it prints figures.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createMeter } from "../src/metering/meter.js";
import { addCounts, bucketStart, emptyCounts, type UsageCounts } from "../src/metering/usage-counts.js";
import { createUsageJournal, type FsyncPolicy } from "../src/metering/usage-journal.js";
import { createUsageStore } from "../src/metering/usage-store.js";
import type { UsageDelta } from "../src/metering/usage-counts.js";
import { openDatabase } from "../src/storage/open-database.js";

const { values: args } = parseArgs({ options: {
  requests: { type: "string", default: "20000" }, rounds: { type: "string", default: "5" }, accounts: { type: "string", default: "50" },
  // Requests finishing in one event-loop turn (they share one journal write): 1 is an idle server, 8 a busy one.
  perTurn: { type: "string", default: "1,8" },
} });
const REQUESTS = Number(args.requests);
const ROUNDS = Number(args.rounds);
const ACCOUNTS = Number(args.accounts);
/** The default METERING_MAX_PENDING: one segment (and one SQL transaction) per this many requests. */
const BATCH = 1000;
const counts: UsageCounts = { requests: 1, textItems: 1, imageItems: 0, deepAnalyses: 0, flagged: 0 };
const accountOf = (i: number) => `acct_bench_${i % ACCOUNTS}`;
const PER_TURN = args.perTurn.split(",").map(Number);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
/** CPU time of the whole process (event loop and threadpool), in ns. */
const cpuNs = () => {
  const { user, system } = process.cpuUsage();
  return BigInt(user + system) * 1000n;
};

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-metering-"));
const db = await openDatabase({ databaseUrl: process.env["DATABASE_URL"], dataDir });
const store = createUsageStore(db);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const µs = (ns: bigint, n: number) => Number(ns) / 1000 / n;

type Figures = { record: number; recordCpu: number; flush: number };

/** The previous meter: sum per account and minute in a Map; a crash lost what was not flushed. */
async function baselineRound(perTurn: number): Promise<Figures> {
  let buffer = new Map<string, UsageDelta>();
  const record = (accountId: string) => {
    const minuteStart = bucketStart(Date.now(), "minute");
    const key = `${accountId}\u0000${minuteStart}`;
    const existing = buffer.get(key);
    if (existing) addCounts(existing.counts, counts);
    else buffer.set(key, { accountId, minuteStart, counts: addCounts(emptyCounts(), counts) });
  };
  return timeRounds(perTurn, async (i) => {
    record(accountOf(i));
  }, async () => {
    const batch = [...buffer.values()];
    buffer = new Map();
    await store.add(batch);
  });
}

async function journalRound(fsync: FsyncPolicy, perTurn: number): Promise<Figures> {
  const dir = path.join(dataDir, `journal-${fsync}`);
  const journal = createUsageJournal({ dir, fsync });
  const meter = createMeter({ store, journal, flushMs: 3_600_000, maxPending: Number.MAX_SAFE_INTEGER });
  await meter.flush(); // the start-up replay scan, not part of the per-request cost
  const figures = await timeRounds(perTurn, (i) => meter.record(accountOf(i), counts), () => meter.flush());
  await meter.close();
  return figures;
}

/** `perTurn` requests per event-loop turn, each awaiting its record, as the interceptor does. */
async function timeRounds(perTurn: number, record: (i: number) => Promise<void>, flush: () => Promise<void>): Promise<Figures> {
  let recordNs = 0n;
  let recordCpuNs = 0n;
  let flushNs = 0n;
  for (let done = 0; done < REQUESTS; done += BATCH) {
    const t0 = process.hrtime.bigint();
    const c0 = cpuNs();
    for (let i = done; i < done + BATCH; i += perTurn) {
      const turn: Promise<void>[] = [];
      for (let j = i; j < Math.min(i + perTurn, done + BATCH); j++) turn.push(record(j));
      await Promise.all(turn);
      await nextTurn();
    }
    const t1 = process.hrtime.bigint();
    recordCpuNs += cpuNs() - c0;
    await flush();
    flushNs += process.hrtime.bigint() - t1;
    recordNs += t1 - t0;
  }
  return { record: µs(recordNs, REQUESTS), recordCpu: µs(recordCpuNs, REQUESTS), flush: µs(flushNs, REQUESTS) };
}

const modes: Record<string, (perTurn: number) => Promise<Figures>> = {
  "baseline (in memory, not durable)": baselineRound,
  "journal, METERING_FSYNC=batch": (n) => journalRound("batch", n),
  "journal, METERING_FSYNC=always": (n) => journalRound("always", n),
};
console.log(`${REQUESTS} requests × ${ROUNDS} rounds, ${ACCOUNTS} accounts, a flush every ${BATCH}; store: ${db.dialect}; ${os.cpus()[0]?.model ?? "cpu"}; Node ${process.version}`);
console.log("record: from the request's counts to its answer being allowed (wall, then CPU of the process); flush: the write to SQL, off the request path");
for (const perTurn of PER_TURN) {
  const results: Record<string, Figures[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the modes so drift on a shared machine hits each alike.
    for (const [name, run] of Object.entries(modes)) (results[name] ??= []).push(await run(perTurn));
  }
  const med = (name: string, key: keyof Figures) => median(results[name]!.map((f) => f[key]));
  const base = "baseline (in memory, not durable)";
  console.log(`\n${perTurn} request(s) per event-loop turn:`);
  for (const name of Object.keys(results)) {
    console.log(`  ${name.padEnd(34)} record ${med(name, "record").toFixed(2).padStart(8)} µs wall, ${med(name, "recordCpu").toFixed(2).padStart(6)} µs CPU` +
      ` (+${(med(name, "recordCpu") - med(base, "recordCpu")).toFixed(2)} µs CPU vs baseline)   flush ${med(name, "flush").toFixed(2).padStart(6)} µs/req`);
  }
}
await db.close();
fs.rmSync(dataDir, { recursive: true, force: true });
