import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createUsageJournal } from "../../src/metering/usage-journal.js";
import { waitUntil } from "../support/poll.js";
import { startServerWithKey } from "../support/test-server.js";

// METERING_FSYNC=always: a counted call is answered only once its journal line is on stable
// storage, so its append waits for fdatasync, and a failed sync refuses the call (usage-journal.ts
// writeGroup). Here fdatasync is held at the file layer, the way journal-short-write.test.ts
// fills the disk: a fake of the one system call, everything else real.

const counts = { requests: 1, textItems: 1, imageItems: 0, deepAnalyses: 0, flagged: 0 };
const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

type SyncCallback = (error: NodeJS.ErrnoException | null) => void;

/** fdatasync calls wait in `held` until the test finishes them (with the real sync, or an error). */
function holdSyncs(): { fd: number; done: SyncCallback }[] {
  const held: { fd: number; done: SyncCallback }[] = [];
  const hold = (fd: number, done: SyncCallback) => {
    held.push({ fd, done });
  };
  vi.spyOn(fs, "fdatasync").mockImplementation(hold as unknown as typeof fs.fdatasync);
  return held;
}

/** The real fdatasync of a held call, then its callback. */
function finishSync(call: { fd: number; done: SyncCallback }): void {
  fs.fdatasyncSync(call.fd);
  call.done(null);
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

function tracked(promise: Promise<void>): { settled: () => boolean; promise: Promise<void> } {
  let settled = false;
  const watched = promise.finally(() => (settled = true));
  watched.catch(() => undefined);
  return { settled: () => settled, promise: watched };
}

describe("the usage journal with fsync always", () => {
  function journal() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "journal-always-"));
    dirs.push(dir);
    return createUsageJournal({ dir, fsync: "always" });
  }

  it("resolves an append only after fdatasync has finished", async () => {
    const held = holdSyncs();
    const appended = tracked(journal().append("acct_a", 0, counts));
    await turns(5);
    expect(held).toHaveLength(1);
    expect(appended.settled()).toBe(false);
    finishSync(held[0]!);
    await expect(appended.promise).resolves.toBeUndefined();
  });

  it("rejects the append when fdatasync fails", async () => {
    const held = holdSyncs();
    const appended = tracked(journal().append("acct_a", 0, counts));
    await turns(5);
    expect(held).toHaveLength(1);
    held[0]!.done(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" }));
    await expect(appended.promise).rejects.toMatchObject({ code: "EIO" });
  });
});

describe("a server with METERING_FSYNC=always", () => {
  it("answers a moderate call only once its usage line is synced", async () => {
    const { server, key } = await startServerWithKey({ env: { METERING_FSYNC: "always" } });
    try {
      const held = holdSyncs();
      let answered = false;
      const call = fetch(`${server.httpUrl}/v1/moderate`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify({ input: [{ type: "text", text: "hello there" }] }),
      }).then((response) => {
        answered = true;
        return response;
      });
      await waitUntil(() => held.length > 0, "the journal's fdatasync");
      // The line is written; the answer waits for the sync (a real socket: give it time to show up).
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(answered).toBe(false);
      for (const sync of held.splice(0)) finishSync(sync);
      expect((await call).status).toBe(200);
    } finally {
      vi.restoreAllMocks();
      await server.close();
    }
  });
});
