import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccountStore } from "../../src/accounts/account-store.js";
import { createSessionStore } from "../../src/dashboard/session-store.js";
import { sumEntries, type JournalEntry } from "../../src/metering/journal-segment.js";
import { createUsageStore, type UsageStore } from "../../src/metering/usage-store.js";
import type { Database } from "../../src/storage/database.js";
import { createStoreLocation, STORE_KINDS, type StoreLocation } from "./store-fixtures.js";

// Found by an audit of clock jumps (session 52): clean-up deleted rows older than a cut-off read on
// the process's own clock, so one replica days ahead deleted every replica's rows: usage_journal
// rows of segments still open (their lines then counted twice: 25 answered, 45 counted), every
// minute bucket, every dashboard session.

const DAY = 86_400_000;
const one = { requests: 1, textItems: 1, imageItems: 0, deepAnalyses: 0, flagged: 0 };

describe.each(STORE_KINDS)("clean-up under a clock days ahead on %s", (kind) => {
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
  const total = async (accountId: string) => (await usage.read(accountId, "day", 0, Date.now() + DAY)).totals.requests;
  const entries = (accountId: string, n: number): JournalEntry[] =>
    Array.from({ length: n }, (_, i) => ({ seq: i + 1, accountId, minuteStart: Math.floor(Date.now() / 60_000) * 60_000, counts: { ...one } }));

  it("keeps the journal rows and minute buckets another replica still needs", async () => {
    const lines = entries("acct_skew", 15);
    await usage.applySegment("seg-skew", sumEntries(lines.slice(0, 10)), () => lines, Date.now());
    // A replica 8 days ahead prunes by its clock: the database's, earlier, decides.
    await usage.prune(Date.now() + 8 * DAY);
    expect(await db.query("SELECT segment FROM usage_journal WHERE segment = $1", ["seg-skew"])).toHaveLength(1);
    expect((await usage.read("acct_skew", "minute", 0, Date.now() + DAY)).totals.requests).toBe(10);
    await usage.applySegment("seg-skew", sumEntries(lines.slice(10), 10), () => lines, Date.now());
    expect(await total("acct_skew")).toBe(15);
  });

  it("does not count a segment's earlier batches again when its row was pruned all the same", async () => {
    const lines = entries("acct_pruned", 15);
    await usage.applySegment("seg-pruned", sumEntries(lines.slice(0, 10)), () => lines, Date.now());
    await db.execute("DELETE FROM usage_journal WHERE segment = $1", ["seg-pruned"]); // a store restored, a clock far off
    expect(await usage.applySegment("seg-pruned", sumEntries(lines.slice(10), 10), () => lines, Date.now())).toBe(5);
    expect(await total("acct_pruned")).toBe(15); // was 25: the whole file read again
  });

  it("keeps other people's dashboard sessions when a log-in comes through a process days ahead", async () => {
    const account = await createAccountStore(db, Date.now).createAccount({ email: `skew-${kind}@example.test`, plan: "free" });
    const here = createSessionStore(db, Date.now);
    const ahead = createSessionStore(db, () => Date.now() + 8 * DAY);
    const kept = await here.create(account.id);
    await ahead.create(account.id); // its housekeeping ran with a cut-off 8 days ahead
    expect(await here.find(kept.token)).toMatchObject({ accountId: account.id });
  });
});
