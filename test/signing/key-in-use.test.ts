import { afterAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { markKeyInUse, refresh, signersOf, STALE_MS } from "../../src/signing/key-in-use.js";

/** Servers on a shared DATA_DIR on other hosts: no pid to check there, only how fresh their file is. */

const dir = mkdtempSync(join(tmpdir(), "signing-in-use-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function otherHost(name: string, kid: string, ageMs: number): string {
  mkdirSync(join(dir, "in-use"), { recursive: true });
  const path = join(dir, "in-use", `${name}.1.json`);
  writeFileSync(path, JSON.stringify({ kid, host: name, pid: 1 }));
  const at = new Date(Date.now() - ageMs);
  utimesSync(path, at, at);
  return path;
}

describe("signersOf", () => {
  it("counts another host's server while its file is fresh, and forgets one not heard of for STALE_MS", () => {
    const fresh = otherHost("replica-b.example", "kidA", 5_000);
    const gone = otherHost("replica-c.example", "kidA", STALE_MS + 1_000);
    otherHost("replica-d.example", "kidB", 0);
    expect(signersOf(dir, "kidA")).toEqual([{ kid: "kidA", host: "replica-b.example", pid: 1, seenMsAgo: expect.any(Number) }]);
    expect([existsSync(fresh), existsSync(gone)]).toEqual([true, false]);
  });

  it("counts this process once it has marked a key, under that key only", () => {
    markKeyInUse(dir, "kidC");
    expect(signersOf(dir, "kidC")).toMatchObject([{ kid: "kidC", pid: process.pid }]);
    markKeyInUse(dir, "kidD"); // a restart onto the new key replaces the process's file
    expect(signersOf(dir, "kidC")).toEqual([]);
  });
});

// Found by a review (session 52): one failed touch dropped this process from the refresh for good,
// and a file removed meanwhile stayed gone, so a retire went through while it still signed.
it("writes its file again at the next refresh when it was removed meanwhile", () => {
  const store = mkdtempSync(join(tmpdir(), "signing-in-use-refresh-"));
  try {
    markKeyInUse(store, "kidR");
    rmSync(join(store, "in-use"), { recursive: true, force: true });
    expect(signersOf(store, "kidR")).toEqual([]);
    refresh();
    expect(signersOf(store, "kidR")).toHaveLength(1);
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
});
