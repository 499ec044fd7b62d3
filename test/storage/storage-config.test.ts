import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config/config.js";
import { ConfigError } from "../../src/base/env-values.js";
import { readStorageConfig, STORAGE_DEFAULTS } from "../../src/storage/read-storage-config.js";

describe("database timeouts (DATABASE_*)", () => {
  it("has bounded defaults, in the app's config", () => {
    expect(readConfig({}).storage).toEqual(STORAGE_DEFAULTS);
    expect(STORAGE_DEFAULTS.queryTimeoutMs).toBeGreaterThan(STORAGE_DEFAULTS.statementTimeoutMs);
  });

  it("reads each variable, and keeps the query timeout above a raised statement timeout", () => {
    expect(readStorageConfig({
      DATABASE_CONNECT_TIMEOUT_MS: "700", DATABASE_STATEMENT_TIMEOUT_MS: "900", DATABASE_QUERY_TIMEOUT_MS: "1500",
      DATABASE_POOL_SIZE: "4", DATABASE_BUSY_TIMEOUT_MS: "250", DATABASE_APPLICATION_NAME: "mod-eu-1", DATABASE_STARTUP_WAIT_MS: "0",
    })).toEqual({ connectTimeoutMs: 700, statementTimeoutMs: 900, queryTimeoutMs: 1500, poolSize: 4, busyTimeoutMs: 250, applicationName: "mod-eu-1", startupWaitMs: 0 });
    expect(readStorageConfig({ DATABASE_STATEMENT_TIMEOUT_MS: "10000" }).queryTimeoutMs).toBe(11_000);
  });

  it("refuses 0 (no limit), junk, and a query timeout the statement timeout cannot fire before", () => {
    expect(() => readStorageConfig({ DATABASE_CONNECT_TIMEOUT_MS: "0" })).toThrow(/DATABASE_CONNECT_TIMEOUT_MS must be a whole number from 1/);
    expect(() => readStorageConfig({ DATABASE_POOL_SIZE: "ten" })).toThrow(ConfigError);
    expect(() => readStorageConfig({ DATABASE_STARTUP_WAIT_MS: "-1" })).toThrow(/DATABASE_STARTUP_WAIT_MS must be a whole number from 0 to 600000/);
    expect(() => readStorageConfig({ DATABASE_APPLICATION_NAME: "é".repeat(3) })).toThrow(/DATABASE_APPLICATION_NAME must be 1 to 63 printable ASCII/);
    expect(() => readStorageConfig({ DATABASE_STATEMENT_TIMEOUT_MS: "5000", DATABASE_QUERY_TIMEOUT_MS: "5000" }))
      .toThrow(/DATABASE_QUERY_TIMEOUT_MS \(5000\) must be above DATABASE_STATEMENT_TIMEOUT_MS \(5000\)/);
  });

  it("reads METERING_FSYNC", () => {
    expect(readConfig({}).meteringFsync).toBe("batch");
    expect(readConfig({ METERING_FSYNC: "always" }).meteringFsync).toBe("always");
    expect(() => readConfig({ METERING_FSYNC: "sometimes" })).toThrow(/METERING_FSYNC must be one of batch, always/);
  });
});
