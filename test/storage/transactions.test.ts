import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/storage/database.js";
import { toApiError } from "../../src/errors/api-error.js";
import { UnstorableTextError } from "../../src/storage/storage-errors.js";
import { createStoreLocation, STORE_KINDS, type StoreLocation } from "./store-fixtures.js";

// The driver contract every repository relies on: a transaction is all or nothing, and one
// caller's failed transaction never takes another caller's writes down with it.
describe.each(STORE_KINDS)("transactions on %s", (kind) => {
  let location: StoreLocation;
  let db: Database;
  beforeAll(async () => {
    location = await createStoreLocation(kind);
    db = await location.open();
    await db.execute(`CREATE TABLE tx_probe (id TEXT PRIMARY KEY)`);
  });
  afterAll(async () => {
    await db?.close();
    await location?.destroy();
  });
  const exists = async (id: string) => (await db.query(`SELECT id FROM tx_probe WHERE id = $1`, [id])).length === 1;

  it("commits on success and rolls back everything on failure", async () => {
    await db.transaction(async (tx) => {
      await tx.execute(`INSERT INTO tx_probe (id) VALUES ($1)`, ["committed"]);
    });
    await expect(db.transaction(async (tx) => {
      await tx.execute(`INSERT INTO tx_probe (id) VALUES ($1)`, ["rolled-back"]);
      throw new Error("abort");
    })).rejects.toThrow("abort");
    expect(await exists("committed")).toBe(true);
    expect(await exists("rolled-back")).toBe(false);
  });

  it("keeps a concurrent transaction's writes when another one fails", async () => {
    const failing = db.transaction(async (tx) => {
      await tx.execute(`INSERT INTO tx_probe (id) VALUES ($1)`, ["doomed"]);
      await sleep(20);
      throw new Error("abort");
    });
    // Expected before anything else is awaited: on a busy machine it may fail first, and an
    // unobserved rejection would fail the whole run.
    const failed = expect(failing).rejects.toThrow("abort");
    await sleep(5); // the failing transaction is open now
    const succeeding = db.transaction(async (tx) => {
      await tx.execute(`INSERT INTO tx_probe (id) VALUES ($1)`, ["survivor"]);
    });
    await expect(succeeding).resolves.toBeUndefined();
    await failed;
    expect(await exists("doomed")).toBe(false);
    expect(await exists("survivor")).toBe(true);
  });

  it("keeps a write made outside any transaction while another one fails", async () => {
    const failing = db.transaction(async (tx) => {
      await tx.execute(`INSERT INTO tx_probe (id) VALUES ($1)`, ["doomed-2"]);
      await sleep(20);
      throw new Error("abort");
    });
    const failed = expect(failing).rejects.toThrow("abort"); // observed at once, as above
    await sleep(5); // the failing transaction is open now
    await db.execute(`INSERT INTO tx_probe (id) VALUES ($1)`, ["plain-write"]);
    await failed;
    expect(await exists("doomed-2")).toBe(false);
    expect(await exists("plain-write")).toBe(true);
  });

  it("runs a transaction opened inside another as part of it", async () => {
    await expect(db.transaction(async (outer) => {
      await outer.execute(`INSERT INTO tx_probe (id) VALUES ($1)`, ["outer"]);
      await outer.transaction(async (inner) => {
        await inner.execute(`INSERT INTO tx_probe (id) VALUES ($1)`, ["inner"]);
      });
      throw new Error("abort");
    })).rejects.toThrow("abort");
    expect(await exists("outer")).toBe(false);
    expect(await exists("inner")).toBe(false);
  });

  it("refuses a text holding U+0000 as the request's fault where the store cannot hold it (PostgreSQL), never a 500", async () => {
    const write = db.execute(`INSERT INTO tx_probe (id) VALUES ($1)`, ["nul\u0000inside"]);
    if (kind === "sqlite") {
      await write;
      return;
    }
    const error = await write.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(UnstorableTextError);
    expect(toApiError(error)).toMatchObject({ code: "invalid_request", httpStatus: 400 });
  });
});
