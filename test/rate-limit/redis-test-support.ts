import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { createClient } from "redis";

/** The shared local Redis the tests and the bench talk to. */
export const SHARED_REDIS_URL = process.env["TEST_REDIS_URL"] ?? "redis://127.0.0.1:6379";

/** A key prefix no other run uses, so runs never see each other's counts. */
export function uniqueKeyPrefix(label: string): string {
  return `test:rate-limit:${label}:${randomUUID()}:`;
}

/** Deletes every key under a prefix (SCAN, not KEYS, so a shared Redis is not blocked). */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      if (keys.length > 0) await client.del(keys);
    }
  } finally {
    client.destroy();
  }
}

export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === "object") resolve(address.port);
        else reject(new Error("no port"));
      });
    });
  });
}

export interface RedisServerProcess {
  port: number;
  url: string;
  /** SIGSTOP: the server keeps its connections but answers nothing, like a Redis stuck on a slow command. */
  freeze(): void;
  /** SIGCONT: the frozen server answers everything it received meanwhile. */
  thaw(): void;
  stop(): Promise<void>;
}

/** Starts a throwaway redis-server with no persistence; resolves once it accepts connections. */
export async function startRedisServer(port: number): Promise<RedisServerProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  await waitForReady(child);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    freeze: () => child.kill("SIGSTOP"),
    thaw: () => child.kill("SIGCONT"),
    stop: () => stopProcess(child),
  };
}

function waitForReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

/**
 * Retries until the check passes; for waiting on real processes (reconnects), never for time itself.
 * Capped by the clock, generously (a reconnect backs off to 1 s, and the suite runs in parallel on
 * 2 cores), rather than by a count of tries, which a machine that refuses fast runs through in 5 s.
 */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 20_000, intervalMs = 25): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() >= until) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
