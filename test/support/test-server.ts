import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { createAppContext, type AppContext, type AppContextOverrides } from "../../src/app/app-context.js";
import { startServer } from "../../src/edge/server.js";
import { readConfig } from "../../src/config/config.js";

export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export type StoreKind = "sqlite" | "postgres";

export interface TestServer {
  httpUrl: string;
  grpcUrl: string;
  /** The METRICS_PORT listener, when the test set METRICS_PORT. */
  metricsUrl: string | undefined;
  ctx: AppContext;
  dataDir: string;
  /** Environment that points modctl (or a second replica) at this server's store. */
  env: Record<string, string>;
  createAccount(plan?: string, rpm?: number): Promise<{ accountId: string; key: string; keyId: string }>;
  close(): Promise<void>;
}

/**
 * Starts the real server on ephemeral ports with its own store: a fresh SQLite file, or a
 * fresh schema in the local PostgreSQL. Every test file gets isolated data.
 */
export async function startTestServer(options: {
  store?: StoreKind;
  env?: Record<string, string>;
  overrides?: AppContextOverrides;
} = {}): Promise<TestServer> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "moderation-test-"));
  const store = options.store ?? "sqlite";
  const schema = store === "postgres" ? await createSchema() : undefined;
  const env: Record<string, string> = {
    PORT: "0",
    GRPC_PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    // Most test servers never see an image: load the image model on first use, in one worker.
    IMAGE_MODEL_LOAD: "lazy",
    IMAGE_WORKERS: "1",
    // A test's close waits out the grace only for a call it left stuck: 5 s, not the default 25.
    SHUTDOWN_GRACE_MS: "5000",
    ...(store === "postgres" ? { DATABASE_URL: POSTGRES_URL, MODCTL_PG_SCHEMA: schema! } : {}),
    ...options.env,
  };
  const ctx = await createAppContext(readConfig(env), { ...(schema ? { pgSchema: schema } : {}), ...options.overrides });
  const server = await startServer(ctx);
  return {
    httpUrl: server.httpUrl,
    grpcUrl: server.grpcUrl,
    metricsUrl: server.metricsUrl,
    ctx,
    dataDir,
    env,
    async createAccount(plan = "free", rpm?: number) {
      const account = await ctx.accounts.createAccount({
        email: `user-${Math.random().toString(36).slice(2)}@example.test`,
        plan,
        ...(rpm === undefined ? {} : { rpm }),
      });
      const key = await ctx.accounts.createKey(account.id, "test");
      return { accountId: account.id, key: key.key, keyId: key.id };
    },
    async close() {
      await server.close();
      await ctx.close();
      if (schema) await dropSchema(schema);
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function createSchema(): Promise<string> {
  const schema = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  return schema;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/** A server plus a key whose account limit never gets in the way of the test's own calls. */
export async function startServerWithKey(options: Parameters<typeof startTestServer>[0] = {}): Promise<{ server: TestServer; key: string }> {
  const server = await startTestServer(options);
  const { key } = await server.createAccount("enterprise", 1_000_000);
  return { server, key };
}

/**
 * One server with a key for the whole test file: started before its tests, closed after. Read
 * `server` and `key` inside tests (they are set once beforeAll has run).
 */
export function useServerWithKey(options: Parameters<typeof startTestServer>[0] = {}): { readonly server: TestServer; readonly key: string } {
  let started: { server: TestServer; key: string } | undefined;
  beforeAll(async () => {
    started = await startServerWithKey(options);
  });
  afterAll(async () => {
    await started?.server.close();
  });
  return {
    get server() {
      if (!started) throw new Error("the test server is not started yet (read it inside a test)");
      return started.server;
    },
    get key() {
      if (!started) throw new Error("the test server is not started yet (read it inside a test)");
      return started.key;
    },
  };
}
