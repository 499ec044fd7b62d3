// Run as a separate process by meter.test.ts and journal-rotation.test.ts: journals `count`
// requests for one account through a real meter, the first `applied` of them written to SQL by a
// flush (its segment stays open), and then dies by SIGKILL, as a crashed server would.
import { createMeter } from "../../src/metering/meter.js";
import { createUsageJournal } from "../../src/metering/usage-journal.js";
import { createUsageStore } from "../../src/metering/usage-store.js";
import { openDatabase } from "../../src/storage/open-database.js";

const [dataDir, databaseUrl, pgSchema, accountId, count, applied = "0"] = process.argv.slice(2);
const db = await openDatabase({ databaseUrl: databaseUrl || undefined, dataDir: dataDir!, ...(pgSchema ? { pgSchema } : {}) });
const journal = createUsageJournal({ dir: `${dataDir}/metering-journal` });
const meter = createMeter({ store: createUsageStore(db), journal, flushMs: 3_600_000, maxPending: 1_000_000 });
// Every record resolved: each of these requests would have been answered.
const record = (n: number, from: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => meter.record(accountId!, { requests: 1, textItems: 2, imageItems: 0, deepAnalyses: 0, flagged: (from + i) % 2 })));
await record(Number(applied), 0);
if (Number(applied) > 0) await meter.flush();
await record(Number(count) - Number(applied), Number(applied));
process.stdout.write("journaled\n");
process.kill(process.pid, "SIGKILL");
