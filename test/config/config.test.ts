import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../../src/config/config.js";
import { SHARED_REDIS_URL } from "../rate-limit/redis-test-support.js";
import { POSTGRES_URL } from "../support/test-server.js";

const base = { DATA_DIR: "/tmp/moderation-config-test" };
const read = (env: Record<string, string>) => readConfig({ ...base, ...env });

describe("readConfig", () => {
  it("has working defaults", () => {
    const config = readConfig({});
    expect(config).toMatchObject({ port: 8080, grpcPort: 8081, host: "127.0.0.1", logLevel: "info", databaseUrl: undefined, redisUrl: undefined });
    expect(config.dataDir).toBe(path.resolve("./data"));
  });

  it("reads the listeners, log level (any case) and store URLs", () => {
    const config = read({
      PORT: "9000", GRPC_PORT: "9001", HOST: " 127.0.0.1 ", LOG_LEVEL: "DEBUG",
      DATABASE_URL: "postgresql://u@db:5432/mod", REDIS_URL: "rediss://cache:6380",
    });
    expect(config).toMatchObject({
      port: 9000, grpcPort: 9001, host: "127.0.0.1", logLevel: "debug",
      databaseUrl: "postgresql://u@db:5432/mod", redisUrl: "rediss://cache:6380",
    });
    expect(config.dataDir).toBe("/tmp/moderation-config-test");
  });

  it("reads WORKER_THREADS (0 = none) and refuses anything but a small whole number", () => {
    expect(read({ WORKER_THREADS: "0" }).computeWorkers).toBe(0);
    expect(read({ WORKER_THREADS: "3" }).computeWorkers).toBe(3);
    expect(read({}).computeWorkers).toBeGreaterThanOrEqual(0);
    for (const bad of ["-1", "two", "1.5", "33"]) {
      expect(() => read({ WORKER_THREADS: bad }), bad).toThrow(new ConfigError(`WORKER_THREADS must be a whole number from 0 to 32; got "${bad}".`));
    }
  });

  it("treats blank values as unset", () => {
    expect(read({ PORT: "  ", DATABASE_URL: "" })).toMatchObject({ port: 8080, databaseUrl: undefined });
  });

  it("lets both listeners take ephemeral ports (0)", () => {
    expect(read({ PORT: "0", GRPC_PORT: "0" })).toMatchObject({ port: 0, grpcPort: 0 });
  });

  it.each([
    ["PORT", "http"], ["PORT", "-1"], ["PORT", "65536"], ["PORT", "80.5"], ["PORT", "0x50"],
    ["GRPC_PORT", "abc"], ["GRPC_PORT", "99999"],
  ])("refuses %s=%s, naming the variable", (name, value) => {
    expect(() => read({ [name]: value })).toThrow(ConfigError);
    expect(() => read({ [name]: value })).toThrow(new RegExp(`${name} must be a port number between 0 and 65535; got "${value.replace(".", "\\.")}"`));
  });

  it("accepts PORT equal to GRPC_PORT: one listener then serves both", () => {
    expect(read({ PORT: "9000", GRPC_PORT: "9000" })).toMatchObject({ port: 9000, grpcPort: 9000 });
  });

  it.each(["loud", "warning", "0"])("refuses LOG_LEVEL=%s, listing the levels", (value) => {
    expect(() => read({ LOG_LEVEL: value })).toThrow(ConfigError);
    expect(() => read({ LOG_LEVEL: value })).toThrow(new RegExp(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "${value}"`));
  });

  it("takes a blank LOG_LEVEL as the default, like every other variable", () => {
    expect(read({ LOG_LEVEL: "" }).logLevel).toBe("info");
    expect(read({ LOG_LEVEL: " debug " }).logLevel).toBe("debug");
  });

  it("refuses a METRICS_PORT equal to an API port, and metering settings past their bounds", () => {
    expect(() => read({ PORT: "9000", METRICS_PORT: "9000" })).toThrow(/METRICS_PORT must differ from PORT and GRPC_PORT/);
    expect(() => read({ GRPC_PORT: "9001", METRICS_PORT: "9001" })).toThrow(/METRICS_PORT must differ/);
    expect(read({ METRICS_PORT: "0" }).metricsPort).toBe(0);
    // A timer past 2^31 - 1 ms fires after 1 ms: the flush loop spun.
    expect(() => read({ METERING_FLUSH_MS: "99999999999" })).toThrow('METERING_FLUSH_MS must be a whole number from 1 to 600000; got "99999999999".');
    expect(() => read({ METERING_MAX_PENDING: "0" })).toThrow(/METERING_MAX_PENDING must be a whole number from 1 to 1000000/);
    expect(read({ METERING_FLUSH_MS: "600000" }).meteringFlushMs).toBe(600_000);
  });

  it("reads CORS_ORIGINS as exact origins or *, and refuses a path or a bare host", () => {
    expect(read({}).corsOrigins).toEqual([]);
    expect(read({ CORS_ORIGINS: "https://app.example.com, http://127.0.0.1:3000/" }).corsOrigins).toEqual(["https://app.example.com", "http://127.0.0.1:3000"]);
    expect(read({ CORS_ORIGINS: "*" }).corsOrigins).toEqual(["*"]);
    for (const bad of ["https://app.example.com/api", "app.example.com", "file:///x", "ftp://a.com", "https://a.com?x=1", "https://a.com#top"]) {
      expect(() => read({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS holds origins such as/);
    }
    // Written as browsers send Origin (an audit's finding, session 51: these were refused as paths).
    expect(read({ CORS_ORIGINS: "HTTPS://App.Example.com:443, http://a.com:80" }).corsOrigins).toEqual(["https://app.example.com", "http://a.com"]);
    // A wildcard inside an origin was kept as written and matched nothing.
    expect(() => read({ CORS_ORIGINS: "https://*.example.com" })).toThrow("CORS_ORIGINS takes * alone or whole origins; a wildcard inside one is not supported, list each origin; got \"https://*.example.com\".");
  });

  it("reads DASHBOARD_ORIGIN as browsers send Origin, and refuses a path (every form was refused 403)", () => {
    expect(read({}).dashboardOrigin).toBeUndefined();
    expect(read({ DASHBOARD_ORIGIN: "HTTPS://Moderation.Example.com:443/" }).dashboardOrigin).toBe("https://moderation.example.com");
    expect(read({ DASHBOARD_ORIGIN: "http://127.0.0.1:8080" }).dashboardOrigin).toBe("http://127.0.0.1:8080");
    for (const bad of ["https://example.com/dash", "https://example.com/?x=1", "https://user@example.com"]) {
      expect(() => read({ DASHBOARD_ORIGIN: bad }), bad).toThrow(/DASHBOARD_ORIGIN is an origin such as/);
    }
  });

  it("serves gRPC reflection unless GRPC_REFLECTION=off, and refuses other values", () => {
    expect(read({}).grpcReflection).toBe("on");
    expect(read({ GRPC_REFLECTION: "OFF" }).grpcReflection).toBe("off");
    expect(() => read({ GRPC_REFLECTION: "no" })).toThrow(/GRPC_REFLECTION must be one of on, off; got "no"/);
  });

  it.each([
    ["mysql://root@db/mod", /DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/; got "mysql:\/\/"/],
    ["http://db:5432/mod", /DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/; got "http:\/\/"/],
    ["not a url", /DATABASE_URL is not a valid URL/],
  ])("refuses DATABASE_URL=%s", (value, message) => {
    expect(() => read({ DATABASE_URL: value })).toThrow(ConfigError);
    expect(() => read({ DATABASE_URL: value })).toThrow(message);
  });

  it("refuses a REDIS_URL with the wrong scheme", () => {
    expect(() => read({ REDIS_URL: "http://cache:6379" })).toThrow(/REDIS_URL must start with redis:\/\/ or rediss:\/\//);
  });

  it("never echoes a DATABASE_URL that is not a URL (it may hold a password)", () => {
    try {
      read({ DATABASE_URL: "s3cr3t-password@@" });
      expect.unreachable();
    } catch (error) {
      expect(String(error)).not.toContain("s3cr3t");
    }
  });
});

describe("the service's start-up", () => {
  it("stops with exit code 2 and names the variable on a bad config", () => {
    const result = spawnSync(process.execPath, ["--import", "./src/boot/ts-loader.mjs", "src/main.ts"], {
      env: { PATH: process.env.PATH ?? "", PORT: "9100", LOG_LEVEL: "loud", DATA_DIR: "/tmp/moderation-config-test" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^configuration error: LOG_LEVEL must be one of/);
  });

  it("stops with exit code 2 when DATA_DIR is a file or lies under one (it was 1 and a bare EEXIST)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "moderation-datadir-test-"));
    const file = path.join(dir, "a-file");
    fs.writeFileSync(file, "");
    // /proc refuses new entries: Node's recursive mkdir spun there at full CPU, never starting.
    for (const [dataDir, code] of [[file, "EEXIST"], [path.join(file, "sub"), "ENOTDIR"], ["/proc/nope/data", "ENOENT"]] as const) {
      const result = spawnSync(process.execPath, ["--import", "./src/boot/ts-loader.mjs", "src/main.ts"], {
        env: { PATH: process.env.PATH ?? "", PORT: "0", GRPC_PORT: "0", DATA_DIR: dataDir },
        encoding: "utf8",
        timeout: 20_000,
      });
      expect(result.status).toBe(2);
      expect(result.stderr).toBe(`configuration error: DATA_DIR ${dataDir} must be a directory this user can write (${code}).\n`);
    }
    fs.rmSync(dir, { recursive: true, force: true });
    // Three start-ups of up to 20 s each: the default 30 s cut the test short on a loaded machine (41 s).
  }, 70_000);

  it("stops with exit code 2 and names HOST when it is no address of this machine (192.0.2.1: documentation range, no DNS asked)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "moderation-host-test-"));
    const result = spawnSync(process.execPath, ["--import", "./src/boot/ts-loader.mjs", "src/main.ts"], {
      env: { PATH: process.env.PATH ?? "", PORT: "0", GRPC_PORT: "0", DATA_DIR: dir, HOST: "192.0.2.1", IMAGE_MODEL_LOAD: "lazy" },
      encoding: "utf8",
      timeout: 60_000,
    });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^configuration error: HOST "192\.0\.2\.1" is not an address of this machine to listen on \(EADDRNOTAVAIL\)\.$/m);
  });

  it("stops with exit code 2 and names the setting whose port another process holds (it was 1 and a bare EADDRINUSE)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "moderation-port-test-"));
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as net.AddressInfo).port;
    const result = spawnSync(process.execPath, ["--import", "./src/boot/ts-loader.mjs", "src/main.ts"], {
      env: { PATH: process.env.PATH ?? "", PORT: "0", GRPC_PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dir, IMAGE_MODEL_LOAD: "lazy" },
      encoding: "utf8",
      timeout: 60_000,
    });
    holder.close();
    fs.rmSync(dir, { recursive: true, force: true });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^configuration error: GRPC_PORT ${port} on 127\\.0\\.0\\.1 is in use by another process \\(EADDRINUSE\\)\\.$`, "m"));
  }, 70_000);

  it("stops with exit code 2 and names REDIS_URL when Redis refuses its database index (it served 503 for good)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "moderation-redis-db-test-"));
    const result = spawnSync(process.execPath, ["--import", "./src/boot/ts-loader.mjs", "src/main.ts"], {
      env: { PATH: process.env.PATH ?? "", PORT: "0", GRPC_PORT: "0", DATA_DIR: dir, REDIS_URL: `${SHARED_REDIS_URL}/99`, IMAGE_MODEL_LOAD: "lazy" },
      encoding: "utf8",
      timeout: 60_000,
    });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^configuration error: REDIS_URL: Redis refused the connection's set-up: ERR DB index is out of range$/m);
  });

  it("stops with exit code 2 and names DATABASE_URL when PostgreSQL refuses its database (it was 1 and pg's bare message)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "moderation-pg-db-test-"));
    const url = new URL(POSTGRES_URL);
    url.pathname = "/no_such_database_for_start_up";
    const result = spawnSync(process.execPath, ["--import", "./src/boot/ts-loader.mjs", "src/main.ts"], {
      env: { PATH: process.env.PATH ?? "", PORT: "0", GRPC_PORT: "0", DATA_DIR: dir, DATABASE_URL: url.href, IMAGE_MODEL_LOAD: "lazy" },
      encoding: "utf8",
      timeout: 60_000,
    });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^configuration error: DATABASE_URL: PostgreSQL refused the connection: database "no_such_database_for_start_up" does not exist$/m);
  });

  it("stops with exit code 2 on a signing key file that is not an Ed25519 private key (it was 1, 'failed to start')", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "moderation-key-test-"));
    const file = path.join(dir, "rsa.pem");
    fs.writeFileSync(file, generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ type: "pkcs8", format: "pem" }));
    const result = spawnSync(process.execPath, ["--import", "./src/boot/ts-loader.mjs", "src/main.ts"], {
      env: { PATH: process.env.PATH ?? "", PORT: "0", GRPC_PORT: "0", DATA_DIR: dir, SIGNING_KEY_FILE: file, IMAGE_MODEL_LOAD: "lazy" },
      encoding: "utf8",
      timeout: 30_000,
    });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^configuration error: SIGNING_KEY_FILE/);
  });
});
