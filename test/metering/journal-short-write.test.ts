import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readSegment } from "../../src/metering/journal-segment.js";
import { createUsageJournal } from "../../src/metering/usage-journal.js";

const counts = { requests: 1, textItems: 1, imageItems: 0, deepAnalyses: 0, flagged: 0 };
const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The next write(2) writes only `part` bytes and returns; the one after fails as a full disk does. */
function diskFillsUp(part: number): void {
  const real = fs.writeSync;
  let calls = 0;
  // The journal writes a Buffer with an offset and a length (usage-journal.ts writeGroup).
  const short = (fd: number, buffer: Buffer, offset: number, length: number): number => {
    calls++;
    if (calls === 1) return real(fd, buffer, offset, Math.min(part, length));
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  };
  vi.spyOn(fs, "writeSync").mockImplementation(short as unknown as typeof fs.writeSync);
}

describe("the usage journal on a disk that fills up mid-write", () => {
  it("refuses the whole group, cuts its part off, and loses none of the lines before or after", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "journal-short-"));
    dirs.push(dir);
    const journal = createUsageJournal({ dir });
    await journal.append("acct_before", 0, counts);
    // A short write (part of the first line) and then ENOSPC: write(2) returns short, it does not throw.
    diskFillsUp(10);
    const refused = Promise.all([journal.append("acct_refused", 0, counts), journal.append("acct_refused", 0, counts)]);
    await expect(refused).rejects.toMatchObject({ code: "ENOSPC" });
    vi.restoreAllMocks();
    await journal.append("acct_after", 0, counts);
    const segment = journal.rotate()!;
    // Replayed after a crash: what was answered 200, nothing refused, no line lost to a torn one.
    expect(readSegment(segment.file)!.map((e) => e.accountId)).toEqual(["acct_before", "acct_after"]);
    expect(segment.deltas.map((d) => d.accountId).sort()).toEqual(["acct_after", "acct_before"]);
  });
});
