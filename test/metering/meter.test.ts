import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createMeter } from "../../src/metering/meter.js";
import { readSegment, sumEntries, type JournalEntry } from "../../src/metering/journal-segment.js";
import { createUsageJournal, OWNER_STALE_MS } from "../../src/metering/usage-journal.js";
import { createUsageStore, type UsageStore } from "../../src/metering/usage-store.js";
import type { Database } from "../../src/storage/database.js";
import { StorageUnavailableError } from "../../src/storage/storage-errors.js";
import { createStoreLocation, STORE_KINDS, type StoreLocation } from "../storage/store-fixtures.js";

const one = { requests: 1, textItems: 1, imageItems: 0, deepAnalyses: 0, flagged: 0 };
const DAY = 86_400_000;

const journalDir = (location: StoreLocation) => path.join(location.dataDir, "metering-journal");
const segmentFiles = (location: StoreLocation) => fs.readdirSync(journalDir(location)).filter((n) => n.endsWith(".seg"));

describe.each(STORE_KINDS)("meter with its journal on %s", (kind) => {
  let location: StoreLocation;
  let db: Database;
  let usage: UsageStore;
  beforeAll(async () => {
    location = await createStoreLocation(kind);
    db = await location.open();
    usage = createUsageStore(db);
  });
  afterAll(async () => {
    await db?.close();
    await location?.destroy();
  });
  const total = async (accountId: string) => (await usage.read(accountId, "day", 0, Date.now() + DAY)).totals;

  it("counts what a process journaled before it was SIGKILLed, once, when the next one starts", async () => {
    const child = spawnSync(process.execPath, [
      "--import", "./src/boot/ts-loader.mjs", "test/metering/journal-child.ts",
      location.dataDir, location.databaseUrl ?? "", location.pgSchema ?? "", "acct_killed", "25",
    ], { encoding: "utf8", timeout: 60_000 });
    expect(child.stdout).toBe("journaled\n");
    expect(child.signal).toBe("SIGKILL");
    expect((await total("acct_killed")).requests).toBe(0);

    // Two processes starting at once both find the dead one's journal; the count still goes in once.
    const meters = [0, 1].map(() => createMeter({ store: usage, journal: createUsageJournal({ dir: journalDir(location) }), flushMs: 3_600_000 }));
    await Promise.all(meters.map((m) => m.flush()));
    expect(await total("acct_killed")).toMatchObject({ requests: 25, textItems: 50, flagged: 12 });
    expect(segmentFiles(location)).toEqual([]);
    await Promise.all(meters.map((m) => m.close()));
    expect((await total("acct_killed")).requests).toBe(25);
  }, 90_000);

  it("answers without waiting for the database, keeps what it refused, and writes it once when back", async () => {
    let down = true;
    const flaky: UsageStore = {
      ...usage,
      applySegment: (...args) => (down ? Promise.reject(new StorageUnavailableError("down")) : usage.applySegment(...args)),
    };
    const meter = createMeter({ store: flaky, journal: createUsageJournal({ dir: journalDir(location) }), flushMs: 3_600_000, maxPending: 3 });
    // Answered once the journal has them: nothing waits for SQL.
    await Promise.all(Array.from({ length: 7 }, () => meter.record("acct_outage", one)));
    await meter.flush();
    await meter.flush();
    expect(meter.backlog()).toBeGreaterThan(0);
    expect((await total("acct_outage")).requests).toBe(0);
    down = false;
    await meter.record("acct_outage", one);
    await meter.flush();
    expect(meter.backlog()).toBe(0);
    expect((await total("acct_outage")).requests).toBe(8);
    await meter.close();
    expect((await total("acct_outage")).requests).toBe(8);
  });

  it("keeps its heartbeat fresh every 10 s, however seldom it flushes (METERING_FLUSH_MS up to 600,000)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "heartbeat-"));
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    try {
      const meter = createMeter({ store: usage, journal: createUsageJournal({ dir }), flushMs: 600_000 });
      const ownerFile = path.join(dir, fs.readdirSync(dir).find((n) => n.endsWith(".owner"))!);
      const started = fs.statSync(ownerFile).mtimeMs;
      vi.advanceTimersByTime(OWNER_STALE_MS + 5_000);
      // A replica sharing the directory judges it by this: fresh, so alive.
      expect(Date.now() - fs.statSync(ownerFile).mtimeMs).toBeLessThan(10_001);
      expect(fs.statSync(ownerFile).mtimeMs - started).toBeGreaterThan(OWNER_STALE_MS - 10_000);
      vi.useRealTimers();
      await meter.close();
    } finally {
      vi.useRealTimers();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("adds a segment applied twice, or in part first, only once", async () => {
    const entries: JournalEntry[] = [1, 2, 3, 4, 5].map((seq) => ({ seq, accountId: "acct_twice", minuteStart: 60_000 * seq, counts: { ...one } }));
    const read = () => entries;
    expect(await usage.applySegment("seg-a", sumEntries(entries.slice(0, 2)), read, 1)).toBe(2);
    // Concurrent replays of the whole segment (two replicas): the rest goes in once.
    const added = await Promise.all([usage.applySegment("seg-a", sumEntries(entries), read, 2), usage.applySegment("seg-a", sumEntries(entries), read, 2)]);
    expect(added.sort()).toEqual([0, 3]);
    expect((await total("acct_twice")).requests).toBe(5);
  });
});

describe("usage journal files", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "usage-journal-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("skips a torn last line (the process died mid-write) and damaged lines", () => {
    const file = path.join(dir, "torn.txt");
    fs.writeFileSync(file, `[1,"a",0,1,1,0,0,0]\n[2,"a",0,1,1,0,0,0]\nnot json\n[3,"a",0,1,"x",0,0,0]\n[4,"a",0,1,1,0,0,0]\n[5,"a",0,1,1`);
    expect(readSegment(file)!.map((e) => e.seq)).toEqual([1, 2, 4]);
  });

  it("replays only the segments of instances that are gone", () => {
    const me = createUsageJournal({ dir });
    const sibling = createUsageJournal({ dir }); // another server in this process: alive
    void sibling.append("a", 0, one);
    const owner = (name: string, pid: number, host = os.hostname(), ageMs = 0) => {
      fs.writeFileSync(path.join(dir, `${name}.owner`), JSON.stringify({ host, pid }));
      fs.writeFileSync(path.join(dir, `${name}.00000001.seg`), `[1,"a",0,1,1,0,0,0]\n`);
      const at = new Date(Date.now() - ageMs);
      fs.utimesSync(path.join(dir, `${name}.owner`), at, at);
    };
    owner("alive-parent", process.ppid);
    owner("dead-pid", 2 ** 22 + 12_345); // above Linux's pid_max default: never a live process
    owner("other-host-fresh", 1, "some-other-host");
    owner("other-host-stale", 1, "some-other-host", OWNER_STALE_MS + 10_000);
    fs.writeFileSync(path.join(dir, "no-owner.00000001.seg"), `[1,"a",0,1,1,0,0,0]\n`);
    const orphans = me.orphans().map((o) => path.basename(o.ownerFile, ".owner")).sort();
    expect(orphans).toEqual(["dead-pid", "no-owner", "other-host-stale"]);
    me.close({ unwritten: 0 });
    sibling.close({ unwritten: 1 });
  });
});
