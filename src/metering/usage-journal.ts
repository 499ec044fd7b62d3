import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isProcessRunning } from "../base/process-running.js";
import { addDelta, formatEntry, readSegment, readSegmentFd, type JournalBatch, type JournalEntry, type SegmentRef } from "./journal-segment.js";
import type { UsageCounts, UsageDelta } from "./usage-counts.js";

/** Entries of one of our segments for SQL; `last`: the segment is closed, its file goes once this is in. */
export interface SegmentBatch extends SegmentRef, JournalBatch {
  last: boolean;
}

export type FsyncPolicy = "batch" | "always";

/** An instance whose heartbeat is older than this is taken for dead, even on another host. */
export const OWNER_STALE_MS = 120_000;
/** The readiness probe's file (probe()), as large as a few journal lines. */
const PROBE_SUFFIX = ".probe";
const PROBE_BYTES = Buffer.alloc(512, 0x20);
const SEGMENT_SUFFIX = ".seg";
const OWNER_SUFFIX = ".owner";
/**
 * A segment stays open across flushes (each flush hands SQL the entries since the last one) and
 * closes once this old or this large: each segment is one usage_journal row, kept 7 days, so
 * closing it at every flush had made 86,400 rows a day. 4 MiB is about 65,000 requests.
 */
export const SEGMENT_MAX_AGE_MS = 600_000;
const SEGMENT_MAX_BYTES = 4 * 1024 * 1024;

/** Instances of this process (tests run several servers in one process): never orphans. */
const liveInstances = new Set<string>();

type Waiter = { resolve: () => void; reject: (error: unknown) => void };

/** The segment being appended to. */
interface OpenSegment {
  id: string;
  file: string;
  fd: number;
  openedAt: number;
  seq: number;
  lastSeq: number;
  entries: number;
  /** Entries through this seq were handed out (take); `deltas` and `pending` hold those after it. */
  takenSeq: number;
  pending: number;
  /** Bytes of whole lines written: a failed write is cut back to it. */
  bytes: number;
  /** Its file was removed (a replica took us for dead): closed at the next take. */
  removed: boolean;
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
 * process dying at any point. At each flush the meter takes the entries written since the last
 * one and writes them to SQL; the segment stays open until SEGMENT_MAX_AGE_MS or
 * SEGMENT_MAX_BYTES. A segment left behind by a dead process is replayed by the next one to start.
 *
 * Group commit: the lines of the requests that finish in one event-loop turn go out in one
 * write(2) at the end of the turn, and those answers wait for it (and, with fsync "always", for
 * one shared fdatasync run off the event loop). With "batch", the segment is fdatasynced at each
 * take (each flush), also off the event loop: what a power loss can lose is what no flush took.
 *
 * Files are named by an instance id unique to this process run, with an owner file beside them
 * (host and pid, touched as a heartbeat), so replicas may share one DATA_DIR: a process replays
 * only the segments of instances that are dead (same host: the pid is gone; any host: no
 * heartbeat for OWNER_STALE_MS).
 */
export function createUsageJournal(options: { dir: string; fsync?: FsyncPolicy; clock?: () => number; maxAgeMs?: number; maxBytes?: number }) {
  const { dir } = options;
  const maxAgeMs = options.maxAgeMs ?? SEGMENT_MAX_AGE_MS;
  const maxBytes = options.maxBytes ?? SEGMENT_MAX_BYTES;
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
    // "a+": readable too, so `entries` reads it through the descriptor (journal-segment.ts).
    const fd = fs.openSync(file, "a+", 0o600);
    return { id, file, fd, openedAt: clock(), seq: 0, lastSeq: 0, entries: 0, takenSeq: 0, pending: 0, bytes: 0, removed: false, torn: false, deltas: new Map(), syncWaiters: [], syncing: false, closeAfterSync: false };
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
    for (const entry of g.entries) addDelta(segment.deltas, entry);
    segment.lastSeq = g.entries[g.entries.length - 1]!.seq;
    segment.entries += g.entries.length;
    segment.pending += g.entries.length;
    if (fsyncPolicy === "always") {
      segment.syncWaiters.push(g.waiter);
      if (!segment.syncing) startSync(segment);
    } else {
      g.waiter.resolve();
    }
  };

  /** The entries since the last take, handed out; with "batch", a sync covers them. */
  const takeBatch = (segment: OpenSegment, last: boolean): SegmentBatch => {
    const batch = { id: segment.id, file: segment.file, afterSeq: segment.takenSeq, lastSeq: segment.lastSeq, deltas: [...segment.deltas.values()], last };
    if (fsyncPolicy === "batch" && segment.pending > 0) {
      segment.syncWaiters.push({ resolve: () => undefined, reject: () => undefined });
      if (!segment.syncing) startSync(segment);
    }
    segment.takenSeq = segment.lastSeq;
    segment.deltas = new Map();
    segment.pending = 0;
    return batch;
  };

  /**
   * Closed segments whose last batch is not in SQL yet, by id: their descriptors stay open until
   * the meter releases them, because a segment a replica replayed (and deleted) can only be read
   * through its descriptor, and a batch of it that finds the replica's row ahead reads the rest
   * there. Closed at rotation, they had been read by name, found gone, and their newest lines lost
   * (15 answered, 10 counted; found by a review, session 52).
   */
  const closing = new Map<string, OpenSegment>();

  /** Closes the open segment (its pending lines written first); its last batch may be empty. */
  const rotate = (): SegmentBatch | undefined => {
    writeGroup();
    const segment = open;
    if (!segment) return undefined;
    open = undefined;
    const batch = takeBatch(segment, true);
    if (segment.syncWaiters.length > 0 && !segment.syncing) startSync(segment);
    if (segment.entries === 0) {
      closeWhenSynced(segment);
      fs.rmSync(segment.file, { force: true });
      return undefined;
    }
    closing.set(segment.id, segment);
    return batch;
  };

  /** Old, large, or removed by a replica that took us for dead: then a new file keeps what follows on disk. */
  const due = (segment: OpenSegment): boolean => {
    if (!segment.removed && fs.fstatSync(segment.fd).nlink === 0) {
      // Not yet: this take's batch may need the rest read through the descriptor (entries).
      segment.removed = true;
      return false;
    }
    return segment.removed || clock() - segment.openedAt >= maxAgeMs || segment.bytes >= maxBytes;
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
      group.lines.push(formatEntry(seq, accountId, minuteStart, counts));
      group.entries.push({ seq, accountId, minuteStart, counts });
      return group.done;
    },
    /** Entries written since the last take. */
    pending: () => open?.pending ?? 0,
    /**
     * The entries written since the last take, for SQL; undefined when there are none. The
     * segment stays open unless it is due to close: then this is its last batch.
     */
    take(): SegmentBatch | undefined {
      writeGroup();
      if (!open) return undefined;
      if (due(open)) return rotate();
      return open.pending > 0 ? takeBatch(open, false) : undefined;
    },
    rotate,
    /** A segment of ours, whole, through its descriptor while we hold one, so it reads even after a replica removed the file. */
    entries(segment: SegmentRef): JournalEntry[] | undefined {
      const held = open?.id === segment.id ? open : closing.get(segment.id);
      return held ? readSegmentFd(held.fd) : readSegment(segment.file);
    },
    /** A closed segment's last batch is in SQL: its descriptor goes (the meter then deletes the file). */
    release(id: string): void {
      const segment = closing.get(id);
      if (!segment) return;
      closing.delete(id);
      closeWhenSynced(segment);
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
    close(options: { unwritten: number }): SegmentBatch | undefined {
      const last = rotate();
      // What is left unwritten is read by name from its file at the next start.
      for (const segment of closing.values()) closeWhenSynced(segment);
      closing.clear();
      liveInstances.delete(instance);
      if (!last && options.unwritten === 0) fs.rmSync(ownerFile, { force: true });
      return last;
    },
  };
}

export type UsageJournal = ReturnType<typeof createUsageJournal>;

/** Where the processes on a DATA_DIR keep their journal. */
export function journalDirOf(dataDir: string): string {
  return path.join(dataDir, "metering-journal");
}

/** The segment files under a journal directory, any instance's: usage not yet in SQL. */
export function segmentFilesIn(dir: string): string[] {
  try {
    return fs.readdirSync(dir).filter((name) => name.endsWith(SEGMENT_SUFFIX));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
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
  return !isProcessRunning(owner.pid);
}
