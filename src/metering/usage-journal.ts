import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { addCounts, emptyCounts, type UsageCounts, type UsageDelta } from "./usage-counts.js";

/** One metered request as the journal holds it: `seq` orders the entries of one segment. */
export interface JournalEntry {
  seq: number;
  accountId: string;
  minuteStart: number;
  counts: UsageCounts;
}

/** A segment file: its id (the idempotency key in SQL) and where it lies. */
export interface SegmentRef {
  id: string;
  file: string;
}

/** A closed segment with its entries summed. */
export interface Segment extends SegmentRef {
  /** The segment's entries summed per account and minute, up to `lastSeq`. */
  deltas: UsageDelta[];
  lastSeq: number;
}

export type FsyncPolicy = "batch" | "always";

/** An instance whose heartbeat is older than this is taken for dead, even on another host. */
export const OWNER_STALE_MS = 120_000;
/** The readiness probe's file (probe()), as large as a few journal lines. */
const PROBE_SUFFIX = ".probe";
const PROBE_BYTES = Buffer.alloc(512, 0x20);
const SEGMENT_SUFFIX = ".seg";
const OWNER_SUFFIX = ".owner";

/** Instances of this process (tests run several servers in one process): never orphans. */
const liveInstances = new Set<string>();

type Waiter = { resolve: () => void; reject: (error: unknown) => void };

/** The segment being appended to. */
interface OpenSegment {
  id: string;
  file: string;
  fd: number;
  seq: number;
  lastSeq: number;
  entries: number;
  /** Bytes of whole lines written: a failed write is cut back to it. */
  bytes: number;
  /** A failed write could not be cut back: the next write starts a line of its own. */
  torn: boolean;
  deltas: Map<string, UsageDelta>;
  /** "always": answers waiting for the next fdatasync; one runs at a time and covers all before it. */
  syncWaiters: Waiter[];
  syncing: boolean;
  closeAfterSync: boolean;
}

/**
 * The metering write-ahead journal: every accepted request is appended (one JSON line) to a
 * segment file under DATA_DIR/metering-journal before its answer is sent, so it survives the
 * process dying at any point. The meter closes the segment at each flush and writes it to SQL;
 * a segment left behind by a dead process is replayed by the next one to start.
 *
 * Group commit: the lines of the requests that finish in one event-loop turn go out in one
 * write(2) at the end of the turn, and those answers wait for it (and, with fsync "always", for
 * one shared fdatasync run off the event loop). With "batch", a segment is fdatasynced when it
 * closes, also off the event loop.
 *
 * Files are named by an instance id unique to this process run, with an owner file beside them
 * (host and pid, touched as a heartbeat), so replicas may share one DATA_DIR: a process replays
 * only the segments of instances that are dead (same host: the pid is gone; any host: no
 * heartbeat for OWNER_STALE_MS).
 */
export function createUsageJournal(options: { dir: string; fsync?: FsyncPolicy; clock?: () => number }) {
  const { dir } = options;
  const fsyncPolicy = options.fsync ?? "batch";
  const clock = options.clock ?? Date.now;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const instance = `${clock().toString(36)}-${process.pid}-${randomBytes(6).toString("hex")}`;
  const ownerFile = path.join(dir, instance + OWNER_SUFFIX);
  const writeOwner = () => fs.writeFileSync(ownerFile, JSON.stringify({ host: os.hostname(), pid: process.pid }), { mode: 0o600 });
  writeOwner();
  liveInstances.add(instance);

  let segmentNo = 0;
  let open: OpenSegment | undefined;
  /** Lines of this turn, not written yet. */
  let group: { lines: string[]; entries: JournalEntry[]; done: Promise<void>; waiter: Waiter } | undefined;

  const openSegment = (): OpenSegment => {
    segmentNo++;
    const id = `${instance}.${String(segmentNo).padStart(8, "0")}`;
    const file = path.join(dir, id + SEGMENT_SUFFIX);
    return { id, file, fd: fs.openSync(file, "a", 0o600), seq: 0, lastSeq: 0, entries: 0, bytes: 0, torn: false, deltas: new Map(), syncWaiters: [], syncing: false, closeAfterSync: false };
  };

  const closeWhenSynced = (segment: OpenSegment) => {
    segment.closeAfterSync = true;
    if (!segment.syncing) fs.close(segment.fd, () => undefined);
  };

  const startSync = (segment: OpenSegment) => {
    const waiters = segment.syncWaiters.splice(0);
    segment.syncing = true;
    fs.fdatasync(segment.fd, (error) => {
      segment.syncing = false;
      for (const w of waiters) error ? w.reject(error) : w.resolve();
      if (segment.syncWaiters.length > 0) startSync(segment);
      else if (segment.closeAfterSync) fs.close(segment.fd, () => undefined);
    });
  };

  /** Writes this turn's lines in one write(2); their answers go once it (and with "always", a sync) is done. */
  const writeGroup = () => {
    const g = group;
    group = undefined;
    if (!g) return;
    const segment = open!;
    const data = Buffer.from((segment.torn ? "\n" : "") + g.lines.join(""));
    try {
      // write(2) may write part and return (a disk filling up): the rest is written, or it throws.
      for (let done = 0; done < data.length; ) {
        const wrote = fs.writeSync(segment.fd, data, done, data.length - done);
        if (wrote <= 0) throw Object.assign(new Error("the usage journal's write made no progress"), { code: "EIO" });
        done += wrote;
      }
    } catch (error) {
      // Part of the group may be on disk: cut it off, so no request of it is counted on replay
      // and the next group's first line is not glued to a torn one (which lost it as well).
      try {
        fs.ftruncateSync(segment.fd, segment.bytes);
      } catch {
        segment.torn = true;
      }
      g.waiter.reject(error);
      return;
    }
    segment.bytes += data.length;
    segment.torn = false;
    for (const entry of g.entries) addEntry(segment.deltas, entry);
    segment.lastSeq = g.entries[g.entries.length - 1]!.seq;
    segment.entries += g.entries.length;
    if (fsyncPolicy === "always") {
      segment.syncWaiters.push(g.waiter);
      if (!segment.syncing) startSync(segment);
    } else {
      g.waiter.resolve();
    }
  };

  return {
    instance,
    /**
     * Makes one request's counts durable: resolves once its line is written (and synced, with
     * "always"); rejects if the disk refuses, and then the caller must not answer 200.
     */
    append(accountId: string, minuteStart: number, counts: UsageCounts): Promise<void> {
      open ??= openSegment();
      const seq = ++open.seq;
      if (!group) {
        // One promise for the whole turn's requests: they are written, and answered, together.
        let waiter: Waiter | undefined;
        const done = new Promise<void>((resolve, reject) => (waiter = { resolve, reject }));
        group = { lines: [], entries: [], done, waiter: waiter! };
        setImmediate(writeGroup);
      }
      const { requests, textItems, imageItems, deepAnalyses, flagged } = counts;
      group.lines.push(`[${seq},${JSON.stringify(accountId)},${minuteStart},${requests},${textItems},${imageItems},${deepAnalyses},${flagged}]\n`);
      group.entries.push({ seq, accountId, minuteStart, counts });
      return group.done;
    },
    /** Entries written to the open segment. */
    entriesInSegment: () => open?.entries ?? 0,
    /** Closes the open segment (its pending lines written first) and returns it; undefined when empty. */
    rotate(): Segment | undefined {
      writeGroup();
      const segment = open;
      if (!segment) return undefined;
      open = undefined;
      if (fsyncPolicy === "batch" && segment.entries > 0) segment.syncWaiters.push({ resolve: () => undefined, reject: () => undefined });
      if (segment.syncWaiters.length > 0 && !segment.syncing) startSync(segment);
      closeWhenSynced(segment);
      if (segment.entries === 0) {
        fs.rmSync(segment.file, { force: true });
        return undefined;
      }
      return { id: segment.id, file: segment.file, deltas: [...segment.deltas.values()], lastSeq: segment.lastSeq };
    },
    /**
     * Throws when the journal's directory cannot take a write now (a full disk, a permission
     * taken away): a small file of this instance's written and removed again, for readiness.
     */
    probe(): void {
      const file = path.join(dir, `${instance}${PROBE_SUFFIX}`);
      try {
        fs.writeFileSync(file, PROBE_BYTES, { mode: 0o600 });
      } finally {
        fs.rmSync(file, { force: true });
      }
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
    orphans(): Array<{ ownerFile: string; segments: SegmentRef[] }> {
      const names = fs.readdirSync(dir);
      const byInstance = new Map<string, SegmentRef[]>();
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
      const dead: Array<{ ownerFile: string; segments: SegmentRef[] }> = [];
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

/** Entries summed per account and minute: one upsert per bucket, not per request. */
export function sumEntries(entries: readonly JournalEntry[]): { deltas: UsageDelta[]; lastSeq: number } {
  const byKey = new Map<string, UsageDelta>();
  let lastSeq = 0;
  for (const entry of entries) addEntry(byKey, entry);
  for (const entry of entries) lastSeq = Math.max(lastSeq, entry.seq);
  return { deltas: [...byKey.values()], lastSeq };
}

function addEntry(into: Map<string, UsageDelta>, { accountId, minuteStart, counts }: JournalEntry): void {
  const key = `${accountId}\u0000${minuteStart}`;
  const existing = into.get(key);
  if (existing) addCounts(existing.counts, counts);
  else into.set(key, { accountId, minuteStart, counts: addCounts(emptyCounts(), counts) });
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
