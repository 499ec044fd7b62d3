import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLoginLimiter, type LoginLimiter } from "../../src/dashboard/login-limiter.js";
import type { Database } from "../../src/storage/database.js";
import { createStoreLocation, fakeClock, STORE_KINDS, type StoreLocation } from "../storage/store-fixtures.js";

const WINDOW = 15 * 60_000;

// Two connections to one store stand for two replicas (or a restart): they must share one count.
describe.each(STORE_KINDS)("log-in limiter on %s", (kind) => {
  let location: StoreLocation;
  let dbA: Database;
  let dbB: Database;
  let replicaA: LoginLimiter;
  let replicaB: LoginLimiter;
  const clock = fakeClock();
  let n = 0;
  const email = () => `user-${++n}@example.test`;

  beforeAll(async () => {
    location = await createStoreLocation(kind);
    dbA = await location.open();
    dbB = await location.open();
    replicaA = createLoginLimiter({ db: dbA, clock });
    replicaB = createLoginLimiter({ db: dbB, clock });
  });
  afterAll(async () => {
    await dbA?.close();
    await dbB?.close();
    await location?.destroy();
  });

  it("locks a pair after five failures, whichever replica saw them, until the window ends", async () => {
    const who = email();
    for (let i = 0; i < 4; i++) await (i % 2 ? replicaA : replicaB).recordFailure(who, "10.0.0.1");
    expect(await replicaA.retryAfterMs(who, "10.0.0.1")).toBe(0);
    await replicaB.recordFailure(who, "10.0.0.1");
    expect(await replicaA.retryAfterMs(who, "10.0.0.1")).toBe(WINDOW);
    clock.advance(WINDOW - 1000);
    expect(await replicaB.retryAfterMs(who, "10.0.0.1")).toBe(1000);
    // Other pairs are not locked.
    expect(await replicaA.retryAfterMs(who, "10.0.0.2")).toBe(0);
    expect(await replicaA.retryAfterMs(email(), "10.0.0.1")).toBe(0);
    clock.advance(1000);
    expect(await replicaA.retryAfterMs(who, "10.0.0.1")).toBe(0);
    // A failure after the window starts a new count.
    await replicaA.recordFailure(who, "10.0.0.1");
    for (let i = 0; i < 3; i++) await replicaA.recordFailure(who, "10.0.0.1");
    expect(await replicaA.retryAfterMs(who, "10.0.0.1")).toBe(0);
  });

  it("counts concurrent failures from both replicas, every one", async () => {
    const who = email();
    await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? replicaA : replicaB).recordFailure(who, "10.0.0.3")));
    const rows = await dbA.query<{ failures: unknown }>(`SELECT failures FROM login_failures`);
    expect(rows.map((r) => Number(r.failures))).toContain(6);
    expect(await replicaB.retryAfterMs(who, "10.0.0.3")).toBeGreaterThan(0);
  });

  it("clears the pair on a successful log-in", async () => {
    const who = email();
    for (let i = 0; i < 5; i++) await replicaA.recordFailure(who, "10.0.0.4");
    expect(await replicaB.retryAfterMs(who, "10.0.0.4")).toBeGreaterThan(0);
    await replicaB.recordSuccess(who, "10.0.0.4");
    expect(await replicaA.retryAfterMs(who, "10.0.0.4")).toBe(0);
  });

  it("stores neither the email nor the address, and drops expired rows", async () => {
    const who = email();
    await replicaA.recordFailure(who, "192.168.7.7");
    const rows = JSON.stringify(await dbA.query(`SELECT * FROM login_failures`));
    expect(rows).not.toContain("@example.test");
    expect(rows).not.toContain("192.168.7.7");
    clock.advance(WINDOW + 1);
    await replicaA.recordFailure(email(), "10.0.0.5");
    expect(await dbA.query(`SELECT * FROM login_failures`)).toHaveLength(1);
  });
});
