import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Logger } from "../../src/base/logger.js";
import { MIGRATIONS } from "../../src/storage/migrations/index.js";
import { openDatabase } from "../../src/storage/open-database.js";

/** A logger that keeps its info lines. */
function recordingLogger(): Logger & { infos: { obj: object; msg?: string }[] } {
  const infos: { obj: object; msg?: string }[] = [];
  return { infos, error() {}, warn() {}, debug() {}, info: (obj: object, msg?: string) => void infos.push(msg === undefined ? { obj } : { obj, msg }) };
}

// An upgrade audit's note (session 51): the start-up log never said a store had been migrated.
describe("opening a store", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "migration-log-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("logs the migrations it applied, and nothing once the store is up to date", async () => {
    const first = recordingLogger();
    await (await openDatabase({ databaseUrl: undefined, dataDir, log: first })).close();
    expect(first.infos).toEqual([{ obj: { migrations: MIGRATIONS.map((m) => m.id) }, msg: "store migrated" }]);
    const again = recordingLogger();
    await (await openDatabase({ databaseUrl: undefined, dataDir, log: again })).close();
    expect(again.infos).toEqual([]);
  });
});
