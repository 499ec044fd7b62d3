import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { UsageCounts } from "./usage-counts.js";

/** One metered request as the journal holds it: `seq` orders the entries of one segment. */
export interface JournalEntry {
  seq: number;
  accountId: string;
  minuteStart: number;
  counts: UsageCounts;
}

/** A closed segment file: its id (the idempotency key in SQL) and where it lies. */
export interface Segment {
  id: string;
  file: string;
}

export type FsyncPolicy = "batch" | "always";

/** An instance whose heartbeat is older than this is taken for dead, even on another host. */
export const OWNER_STALE_MS = 120_000;
const SEGMENT_SUFFIX = ".seg";
const OWNER_SUFFIX = ".owner";

/** Instances of this process (tests run several servers in one process): never orphans. */
const liveInstances = new Set<string>();

/**
 * The metering write-ahead journal: every accepted request is appended (one JSON line, a
 * write(2) before the answer leaves) to a segment file under DATA_DIR/metering-journal, so it
 * survives the process dying at any point. The meter closes the segment at each flush and writes
 * it to SQL; a segment left behind by a dead process is replayed by the next one to start.
 *
 * Files are named by an instance id unique to this process run, with an owner file beside them
 * (host and pid, touched as a heartbeat), so replicas may share one DATA_DIR: a process replays
 * only the segments of instances that are dead (same host: the pid is gone; any host: no
 * heartbeat for OWNER_STALE_MS).
 */
export function createUsageJournal(options: { dir: string; fsync?: FsyncPolicy; clock?: () => number }) {
  const { dir } = options;
  const fsync = options.fsync ?? "batch";
  const clock = options.clock ?? Date.now;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const instance = `${clock().toString(36)}-${process.pid}-${randomBytes(6).toString("hex")}`;
  const ownerFile = path.join(dir, instance + OWNER_SUFFIX);
  const writeOwner = () => fs.writeFileSync(ownerFile, JSON.stringify({ host: os.hostname(), pid: process.pid }), { mode: 0o600 });
  writeOwner();
  liveInstances.add(instance);

  let segmentNo = 0;
  let fd: number | undefined;
  let current: Segment | undefined;
  let seq = 0;
  let entriesInSegment = 0;

  const openSegment = () => {
    segmentNo++;
    const id = `${instance}.${String(segmentNo).padStart(8, "0")}`;
    current = { id, file: path.join(dir, id + SEGMENT_SUFFIX) };
    fd = fs.openSync(current.file, "a", 0o600);
    seq = 0;
    entriesInSegment = 0;
  };

  return {
    instance,
    /** Makes one request's counts durable; throws if the disk refuses (the caller must not answer 200). */
    append(accountId: string, minuteStart: number, counts: UsageCounts): void {
      if (fd === undefined) openSegment();
      seq++;
      const line = JSON.stringify([seq, accountId, minuteStart, counts.requests, counts.textItems, counts.imageItems, counts.deepAnalyses, counts.flagged]);
      fs.writeSync(fd!, line + "\n");
      if (fsync === "always") fs.fdatasyncSync(fd!);
      entriesInSegment++;
    },
    /** Entries in the open segment. */
    entriesInSegment: () => entriesInSegment,
    /** Closes the open segment (fsynced) and returns it; undefined when nothing was appended. */
    rotate(): Segment | undefined {
      if (fd === undefined || !current) return undefined;
      const closed = current;
      try {
        if (fsync === "batch") fs.fdatasyncSync(fd);
      } finally {
        fs.closeSync(fd);
        fd = undefined;
        current = undefined;
        entriesInSegment = 0;
      }
      return closed;
    },
    /** Marks this instance alive for other processes sharing the directory. */
    heartbeat(): void {
      const now = new Date(clock());
      try {
        fs.utimesSync(ownerFile, now, now);
      } catch {
        writeOwner(); // removed by a process that took us for dead: claim it back
      }
    },
    /** Segments of dead instances, oldest first, grouped by instance. */
    orphans(): Array<{ ownerFile: string; segments: Segment[] }> {
      const names = fs.readdirSync(dir);
      const byInstance = new Map<string, Segment[]>();
      for (const name of names) {
        if (!name.endsWith(SEGMENT_SUFFIX)) continue;
        const id = name.slice(0, -SEGMENT_SUFFIX.length);
        const owner = id.slice(0, id.lastIndexOf("."));
        if (owner === instance || liveInstances.has(owner)) continue;
        const list = byInstance.get(owner) ?? [];
        list.push({ id, file: path.join(dir, name) });
        byInstance.set(owner, list);
      }
      for (const name of names) {
        // Owners that left no segments behind: only their owner file to clean up.
        const owner = name.endsWith(OWNER_SUFFIX) ? name.slice(0, -OWNER_SUFFIX.length) : undefined;
        if (owner && owner !== instance && !liveInstances.has(owner) && !byInstance.has(owner)) byInstance.set(owner, []);
      }
      const dead: Array<{ ownerFile: string; segments: Segment[] }> = [];
      for (const [owner, segments] of byInstance) {
        const file = path.join(dir, owner + OWNER_SUFFIX);
        if (!isDead(file, clock())) continue;
        dead.push({ ownerFile: file, segments: segments.sort((a, b) => a.id.localeCompare(b.id)) });
      }
      return dead;
    },
    /** Closes the open segment and, when nothing of ours is left to write, removes the owner file. */
    close(options: { unwritten: number }): Segment | undefined {
      const last = this.rotate();
      liveInstances.delete(instance);
      if (!last && options.unwritten === 0) fs.rmSync(ownerFile, { force: true });
      return last;
    },
  };
}

export type UsageJournal = ReturnType<typeof createUsageJournal>;

/** Reads a segment; a torn last line (the process died mid-write) and damaged lines are skipped. */
export function readSegment(file: string): JournalEntry[] | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined; // another process took it
    throw error;
  }
  const entries: JournalEntry[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      continue;
    }
    if (!Array.isArray(row) || row.length !== 8 || typeof row[1] !== "string" || !row.every((v, i) => i === 1 || Number.isSafeInteger(v))) continue;
    const [seq, accountId, minuteStart, requests, textItems, imageItems, deepAnalyses, flagged] = row as [number, string, ...number[]];
    entries.push({ seq, accountId, minuteStart: minuteStart!, counts: { requests: requests!, textItems: textItems!, imageItems: imageItems!, deepAnalyses: deepAnalyses!, flagged: flagged! } });
  }
  return entries;
}

export function removeFile(file: string): void {
  fs.rmSync(file, { force: true });
}

function isDead(ownerFile: string, now: number): boolean {
  let stat: fs.Stats;
  let owner: { host?: unknown; pid?: unknown };
  try {
    stat = fs.statSync(ownerFile);
    owner = JSON.parse(fs.readFileSync(ownerFile, "utf8")) as typeof owner;
  } catch {
    return true; // no owner file (or a damaged one): nobody is writing these segments
  }
  if (now - stat.mtimeMs > OWNER_STALE_MS) return true;
  if (owner.host !== os.hostname() || typeof owner.pid !== "number") return false;
  if (owner.pid === process.pid) return true; // a previous run with our pid (containers: pid 1)
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
