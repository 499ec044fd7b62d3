import { readImageConfig, type ImageModerationOptions } from "../images/config.js";
import { readTextProviderConfig, type TextProviderConfig } from "../providers/text/config.js";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, nonEmpty, readChoice } from "../base/env-values.js";
import { readRateLimitConfig, type RateLimitConfig } from "../rate-limit/read-rate-limit-config.js";
import { readSigningConfig, type SigningConfig } from "../signing/read-signing-config.js";
import { readAbuseLimitsConfig, readTrustProxy, type AbuseLimitsConfig } from "../dashboard/read-abuse-limits-config.js";
import { readStorageConfig, type StorageConfig } from "../storage/read-storage-config.js";
import { readDatabaseUrl, readRedisUrl, readUrl } from "./store-urls.js";

export { ConfigError } from "../base/env-values.js";

/**
 * All settings, read and checked in one place. Step one turns the environment into a
 * plain object of strings; step two turns that into a typed, validated Config, so a
 * bad value stops the service at start-up with a message naming the variable.
 */
export interface Config {
  /** HTTP/1.1 listener: JSON route, Connect, gRPC-Web, dashboard. */
  port: number;
  /** h2c listener: gRPC (and every other protocol over HTTP/2). Equal to port: one listener serves both. */
  grpcPort: number;
  host: string;
  /** METRICS_PORT: /metrics on a listener of its own (and not on PORT / GRPC_PORT); undefined: on the API listeners. */
  metricsPort: number | undefined;
  dataDir: string;
  /** PostgreSQL connection string; the embedded SQLite store under dataDir is used when absent. */
  databaseUrl: string | undefined;
  /** DATABASE_*: connect, statement and query timeouts, pool size, SQLite busy timeout. */
  storage: StorageConfig;
  /** Redis connection string; in-process stores are used when absent. */
  redisUrl: string | undefined;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** RATE_LIMIT_*: failure mode, Redis timeout, key prefix. The store follows redisUrl. */
  rateLimit: RateLimitConfig;
  /** Where response-signing keys come from (SIGNING_KEY_FILE / SIGNING_KEY, else DATA_DIR/signing). */
  signing: SigningConfig;
  /** Image decoding, the embedded image model's workers, and the optional vision provider. */
  images: ImageModerationOptions;
  /** The guard-model provider for text (TEXT_PROVIDER_*), when one is configured. */
  textProvider: TextProviderConfig | undefined;
  /** "trained" (default): the model in models/; "pattern": the transparent rule-based fallback. */
  textClassifier: "trained" | "pattern";
  /**
   * Worker threads for text classification and response signing (WORKER_THREADS; default one
   * fewer than the cores, at most 4). 0 runs both on the event loop, which suits one core.
   */
  computeWorkers: number;
  /**
   * Longest time a request may take to arrive, headers and body (REQUEST_TIMEOUT_MS, default
   * 300000, Node's own default for HTTP/1.1, which fastify turns off): past it an HTTP/1.1 caller
   * gets 408 and the connection closes, an HTTP/2 stream is reset. Without it a client sending a
   * byte now and then held its connection and its part of HELD_BODIES_MAX_MB for good.
   */
  requestTimeoutMs: number;
  /**
   * How long requests in flight may take to finish once shutdown starts (SHUTDOWN_GRACE_MS,
   * default 25000: a guard-model call's 20 s total fits, and it stays under a container
   * runtime's usual 30 s before SIGKILL). Past it, calls still running are stopped and answered.
   */
  shutdownGraceMs: number;
  /** Usage is written to SQL at least this often (METERING_FLUSH_MS, default 1000). */
  meteringFlushMs: number;
  /**
   * Request bodies held at once, every route and protocol, in bytes (HELD_BODIES_MAX_MB; default
   * an eighth of the machine's memory, from 128 MB to 2 GB): past it a body is refused, 503.
   */
  heldBodiesMaxBytes: number;
  /**
   * Requests open at once over every HTTP/2 connection together (HTTP2_MAX_STREAMS; default an
   * eighth of the machine's memory at 64 KB a stream, from 2,000 to 32,000): past it a new
   * stream is reset with REFUSED_STREAM, which clients may retry (edge/http2-stream-cap.ts).
   */
  http2MaxStreams: number;
  /** Journaled requests that force a write to SQL (METERING_MAX_PENDING, default 1000). */
  meteringMaxPending: number;
  /**
   * When the metering journal is fsynced (METERING_FSYNC): "batch" (default) at every write to
   * SQL, so a process crash loses nothing and a power loss at most one flush interval;
   * "always" before every answer, so not even a power loss does.
   */
  meteringFsync: "batch" | "always";
  /** The dashboard's public origin, e.g. https://mod.example.com (DASHBOARD_ORIGIN); else taken from Host. */
  dashboardOrigin: string | undefined;
  /**
   * gRPC server reflection, v1 and v1alpha (GRPC_REFLECTION; default "on"). Public like health:
   * it answers a descriptor file (about 3.5 KB) to a request of a few dozen bytes, so a
   * deployment that needs no reflection clients can turn it off.
   */
  grpcReflection: "on" | "off";
  /** Web origins whose pages may call the API cross-origin (CORS_ORIGINS, comma-separated; "*": any); none by default. */
  corsOrigins: string[];
  /** Dashboard sign-up (SIGNUP): open to anyone, closed (modctl creates accounts), or by invite code (modctl invite create). */
  signup: "open" | "closed" | "invite";
  /** Whose X-Forwarded-For to believe for the client IP (TRUST_PROXY); false: none, the socket's address. */
  trustProxy: boolean | number | string;
  /** Log-in, sign-up and password-hashing limits (LOGIN_*, SIGNUPS_PER_IP, PASSWORD_HASH_*). */
  abuseLimits: AbuseLimitsConfig;
  /**
   * Connections open at once (MAX_CONNECTIONS; default four fifths of the open-file limit) and
   * from one peer address (MAX_CONNECTIONS_PER_ADDRESS; default a quarter of that, or all of it
   * when TRUST_PROXY is set, since every connection then comes from the proxy): past either a
   * new connection is closed as it arrives (edge/connection-limits.ts).
   */
  connectionLimits: ConnectionLimits;
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export function readConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const port = readPort(env, "PORT", 8080);
  const grpcPort = readPort(env, "GRPC_PORT", 8081);
  // Blank is the default, as for every other variable.
  const logLevel = (nonEmpty(env.LOG_LEVEL) ?? "info").toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}; got "${env.LOG_LEVEL}".`);
  }
  const trustProxy = readTrustProxy(env);
  const metricsPort = nonEmpty(env.METRICS_PORT) === undefined ? undefined : readPort(env, "METRICS_PORT", 0);
  if (metricsPort !== undefined && metricsPort !== 0 && (metricsPort === port || metricsPort === grpcPort)) {
    // Else the start fails with a bare EADDRINUSE that names no setting.
    throw new ConfigError(`METRICS_PORT must differ from PORT and GRPC_PORT (/metrics has a listener of its own); got ${metricsPort}.`);
  }
  return {
    port,
    grpcPort,
    // Loopback unless asked: a fresh clone does not expose its dashboard and API to the network.
    host: nonEmpty(env.HOST) ?? "127.0.0.1",
    metricsPort,
    dataDir: path.resolve(nonEmpty(env.DATA_DIR) ?? "./data"),
    databaseUrl: readDatabaseUrl(env),
    storage: readStorageConfig(env),
    redisUrl: readRedisUrl(env),
    logLevel: logLevel as Config["logLevel"],
    rateLimit: readRateLimitConfig(env),
    signing: readSigningConfig(env, { dataDir: path.resolve(nonEmpty(env.DATA_DIR) ?? "./data"), toError: (message) => new ConfigError(message) }),
    images: readImageConfig(env),
    textProvider: readTextProviderConfig(env),
    textClassifier: readChoice(env, "TEXT_CLASSIFIER", ["trained", "pattern"] as const, "trained"),
    computeWorkers: readWorkerThreads(env),
    // At most ten minutes: a timer past 2^31 - 1 ms fires after 1 ms, so the flush loop spun.
    meteringFlushMs: readPositiveInt(env, "METERING_FLUSH_MS", 1000, 600_000),
    requestTimeoutMs: readPositiveInt(env, "REQUEST_TIMEOUT_MS", 300_000, 3_600_000),
    shutdownGraceMs: readPositiveInt(env, "SHUTDOWN_GRACE_MS", 25_000, 600_000),
    meteringMaxPending: readPositiveInt(env, "METERING_MAX_PENDING", 1000, 1_000_000),
    heldBodiesMaxBytes: readPositiveInt(env, "HELD_BODIES_MAX_MB", defaultHeldBodiesMb(), 1_048_576) * 2 ** 20,
    http2MaxStreams: readPositiveInt(env, "HTTP2_MAX_STREAMS", defaultHttp2MaxStreams(), 1_000_000),
    meteringFsync: readChoice(env, "METERING_FSYNC", ["batch", "always"] as const, "batch"),
    dashboardOrigin: readDashboardOrigin(env),
    grpcReflection: readChoice(env, "GRPC_REFLECTION", ["on", "off"] as const, "on"),
    corsOrigins: readCorsOrigins(env),
    signup: readChoice(env, "SIGNUP", ["open", "closed", "invite"] as const, "open"),
    trustProxy,
    abuseLimits: readAbuseLimitsConfig(env),
    // TRUST_PROXY=0 trusts no hop: the peer is the client, as with false.
    connectionLimits: readConnectionLimits(env, trustProxy !== false && trustProxy !== 0),
  };
}

/** Connections open at once (MAX_CONNECTIONS) and from one peer address (MAX_CONNECTIONS_PER_ADDRESS). */
export interface ConnectionLimits {
  total: number;
  perAddress: number;
}

function readConnectionLimits(env: Readonly<Record<string, string | undefined>>, behindProxy: boolean): ConnectionLimits {
  const total = readPositiveInt(env, "MAX_CONNECTIONS", defaultMaxConnections(), 10_000_000);
  return { total, perAddress: readPositiveInt(env, "MAX_CONNECTIONS_PER_ADDRESS", behindProxy ? total : Math.max(1, Math.floor(total / 4)), 10_000_000) };
}

/**
 * Four fifths of the process's open-file limit, so that past it the process still has
 * descriptors for its database, journal, providers and workers (at 1,024: 819); 8,000 where
 * the limit cannot be read (no /proc). Node raises its soft limit to the hard one as it starts,
 * so this is four fifths of `ulimit -Hn`.
 */
function defaultMaxConnections(): number {
  const limit = openFileLimit();
  return limit === undefined ? 8_000 : Math.max(64, Math.floor(limit * 0.8));
}

/** The soft limit of open files (Linux: /proc/self/limits), or undefined when unknown or unlimited. */
function openFileLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    return soft && /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An eighth of the memory this process may use, from 128 MB to 2 GB: a container's limit where
 * one is set (os.totalmem() is the host's), else the machine's.
 */
function defaultHeldBodiesMb(): number {
  return Math.min(2048, Math.max(128, Math.floor(usableMemory() / 8 / 2 ** 20)));
}

/** An eighth of the memory this process may use at 64 KB an open HTTP/2 stream, 2,000 to 32,000. */
function defaultHttp2MaxStreams(): number {
  return Math.min(32_000, Math.max(2_000, Math.floor(usableMemory() / 8 / 65_536)));
}

function usableMemory(): number {
  const constrained = process.constrainedMemory?.() ?? 0;
  return constrained > 0 ? Math.min(constrained, os.totalmem()) : os.totalmem();
}

/** CORS_ORIGINS: "*" or origins as a browser sends them (scheme://host[:port], no path). */
function readCorsOrigins(env: Readonly<Record<string, string | undefined>>): string[] {
  const raw = nonEmpty(env.CORS_ORIGINS);
  if (raw === undefined) return [];
  return raw.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "").map((entry) => {
    if (entry === "*") return entry;
    // No origin holds "@": such an entry is a user or password, which the message must not show.
    if (entry.includes("@")) throw new ConfigError("CORS_ORIGINS holds origins such as https://app.example.com, with no user or password (the entry is not shown).");
    // Matched exactly, so a wildcard host ("https://*.example.com") was kept and matched no origin.
    if (entry.includes("*")) throw new ConfigError(`CORS_ORIGINS takes * alone or whole origins; a wildcard inside one is not supported, list each origin; got "${entry}".`);
    const url = urlOrUndefined(entry);
    // http(s) only (an ftp:// origin was kept), and no path, query or fragment (an empty "?" or "#"
    // included, which `search` and `hash` drop); written as browsers send Origin, lower case and
    // without a default port ("HTTPS://A.COM:443" was refused as a path).
    if (!url || !["http:", "https:"].includes(url.protocol) || url.pathname !== "/" || /[?#]/.test(entry)) {
      throw new ConfigError(`CORS_ORIGINS holds origins such as https://app.example.com (no path), or *; got "${entry}".`);
    }
    return url.origin;
  });
}

function urlOrUndefined(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * DASHBOARD_ORIGIN as browsers send Origin: scheme://host[:port], lower case, no default port.
 * Taken as written, "HTTP://Host" or a path ("https://example.com/dash") never equalled what
 * browsers send, and every dashboard form was refused 403.
 */
function readDashboardOrigin(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const raw = readUrl(env, "DASHBOARD_ORIGIN", ["http:", "https:"]);
  if (raw === undefined) return undefined;
  const url = new URL(raw);
  if (url.username !== "" || url.password !== "") {
    throw new ConfigError("DASHBOARD_ORIGIN is an origin such as https://moderation.example.com, with no user or password (the value is not shown).");
  }
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    throw new ConfigError(`DASHBOARD_ORIGIN is an origin such as https://moderation.example.com (no path or query); got "${raw}".`);
  }
  return url.origin;
}

function readWorkerThreads(env: Readonly<Record<string, string | undefined>>): number {
  const raw = nonEmpty(env.WORKER_THREADS);
  if (raw === undefined) return Math.min(4, os.availableParallelism() - 1);
  if (!/^\d+$/.test(raw) || Number(raw) > 32) {
    throw new ConfigError(`WORKER_THREADS must be a whole number from 0 to 32; got "${raw}".`);
  }
  return Number(raw);
}

function readPort(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > 65535) {
    throw new ConfigError(`${name} must be a port number between 0 and 65535; got "${raw}".`);
  }
  return value;
}

/** A whole number from 1 to `max`, with a default. */
function readPositiveInt(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: number,
  max: number,
): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0 || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from 1 to ${max}; got "${raw}".`);
  }
  return Number(raw);
}
