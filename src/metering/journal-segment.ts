import fs from "node:fs";
import { addCounts, emptyCounts, type UsageCounts, type UsageDelta } from "./usage-counts.js";

/** One metered request as the journal holds it: `seq` orders the entries of one segment. */
export interface JournalEntry {
  seq: number;
  accountId: string;
  minuteStart: number;
  counts: UsageCounts;
}

/** A segment file: its id (its row in usage_journal) and where it lies. */
export interface SegmentRef {
  id: string;
  file: string;
}

/** A segment's entries after `afterSeq` through `lastSeq`, summed per account and minute. */
export interface JournalBatch {
  afterSeq: number;
  lastSeq: number;
  deltas: UsageDelta[];
}

/** One line of a segment file. */
export function formatEntry(seq: number, accountId: string, minuteStart: number, counts: UsageCounts): string {
  const { requests, textItems, imageItems, deepAnalyses, flagged } = counts;
  return `[${seq},${JSON.stringify(accountId)},${minuteStart},${requests},${textItems},${imageItems},${deepAnalyses},${flagged}]\n`;
}

/** Reads a segment; a torn last line (the process died mid-write) and damaged lines are skipped. */
export function readSegment(file: string): JournalEntry[] | undefined {
  try {
    return parseSegment(fs.readFileSync(file, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined; // another process took it
    throw error;
  }
}

/**
 * Reads a segment through its open descriptor (opened "a+"): positional reads, as O_APPEND
 * writes ignore the file position. Works after a replica removed the file.
 */
export function readSegmentFd(fd: number): JournalEntry[] {
  const size = fs.fstatSync(fd).size;
  const buffer = Buffer.alloc(size);
  let done = 0;
  while (done < size) {
    const read = fs.readSync(fd, buffer, done, size - done, done);
    if (read === 0) break;
    done += read;
  }
  return parseSegment(buffer.toString("utf8", 0, done));
}

function parseSegment(text: string): JournalEntry[] {
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

/** Entries (all after `afterSeq`) summed per account and minute: one upsert per bucket, not per request. */
export function sumEntries(entries: readonly JournalEntry[], afterSeq = 0): JournalBatch {
  const byKey = new Map<string, UsageDelta>();
  let lastSeq = afterSeq;
  for (const entry of entries) addDelta(byKey, entry);
  for (const entry of entries) lastSeq = Math.max(lastSeq, entry.seq);
  return { afterSeq, lastSeq, deltas: [...byKey.values()] };
}

/** Two lists of deltas as one, a delta per account and minute. */
export function mergeDeltas(a: readonly UsageDelta[], b: readonly UsageDelta[]): UsageDelta[] {
  const byKey = new Map<string, UsageDelta>();
  for (const delta of [...a, ...b]) addDelta(byKey, delta);
  return [...byKey.values()];
}

/** Adds a delta (or an entry) into its account and minute's sum; never mutates `delta`. */
export function addDelta(into: Map<string, UsageDelta>, { accountId, minuteStart, counts }: UsageDelta): void {
  const key = `${accountId}\u0000${minuteStart}`;
  const existing = into.get(key);
  if (existing) addCounts(existing.counts, counts);
  else into.set(key, { accountId, minuteStart, counts: addCounts(emptyCounts(), counts) });
}
